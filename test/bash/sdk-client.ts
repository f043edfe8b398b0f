// RemoteWorkspace.execute_command of the OpenHands SDK (remote_workspace_mixin.py), call for call:
// the same start body, the same search parameters, the same duplicate check and the same end test.
import { api, type TestServer } from '../support/server.js';

export interface CommandResult {
  command: string;
  exit_code: number;
  stdout: string;
  stderr: string;
  timeout_occurred: boolean;
}

export async function sdkExecuteCommand(
  server: TestServer,
  command: string,
  cwd: string | null,
  timeout: number,
): Promise<CommandResult> {
  const payload: Record<string, unknown> = { command, timeout: Math.trunc(timeout) };
  if (cwd !== null) payload.cwd = cwd;
  const started = await api(server, '/api/bash/start_bash_command', {
    method: 'POST',
    body: JSON.stringify(payload),
  });
  if (!started.ok) throw new Error(`start: ${started.status} ${await started.text()}`);
  const commandId = ((await started.json()) as { id: string }).id;

  const stdout: string[] = [];
  const stderr: string[] = [];
  let exitCode: number | null = null;
  let lastOrder = -1;
  const seen = new Set<string>();
  const startTime = Date.now();
  while (Date.now() - startTime < timeout * 1000) {
    const params = new URLSearchParams({
      command_id__eq: commandId,
      sort_order: 'TIMESTAMP',
      limit: '100',
      kind__eq: 'BashOutput',
    });
    if (lastOrder >= 0) params.set('order__gt', String(lastOrder));
    const response = await api(server, `/api/bash/bash_events/search?${params}`);
    if (!response.ok) throw new Error(`search: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { items: Record<string, unknown>[] };
    for (const event of page.items ?? []) {
      if (event.kind !== 'BashOutput') continue;
      const id = event.id as string | undefined;
      if (id !== undefined) {
        if (seen.has(id)) throw new Error(`Duplicate event received: ${id}`);
        seen.add(id);
      }
      const order = event.order as number | undefined;
      if (order !== undefined && order !== null && order > lastOrder) lastOrder = order;
      if (event.stdout) stdout.push(event.stdout as string);
      if (event.stderr) stderr.push(event.stderr as string);
      if (event.exit_code !== undefined && event.exit_code !== null) exitCode = event.exit_code as number;
    }
    if (exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (exitCode === null) {
    exitCode = -1;
    stderr.push(`Command timed out after ${timeout} seconds`);
  }
  const err = stderr.join('');
  return {
    command,
    exit_code: exitCode,
    stdout: stdout.join(''),
    stderr: err,
    timeout_occurred: exitCode === -1 && err.includes('timed out'),
  };
}
