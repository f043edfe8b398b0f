// Runs hook commands: `sh -c <command>` in the workspace, the event as JSON on stdin, with the
// server's environment minus its secrets. Exit code 2 blocks; a JSON object on stdout may also
// decide (`decision: "deny"`, `continue: false`) and explain (`reason`, `additionalContext`).
// A hook that fails to run or times out is reported, never treated as a block: a broken hook
// must not silently stop an agent, and must not silently let through what it was meant to stop
// either, so its failure is recorded in the HookExecutionEvent.
import { spawn } from 'node:child_process';
import { sanitizedEnv } from '../tools/index.js';
import { hooksFor } from './config.js';
import { HOOK_EVENT_TYPES, type HookConfig, type HookDefinition, type HookEventName } from './schemas.js';

/** What a hook script reads on stdin (OpenHands' HookEvent). */
export interface HookInput {
  event_type: string;
  tool_name: string | null;
  tool_input: Record<string, unknown> | null;
  tool_response: Record<string, unknown> | null;
  message: string | null;
  session_id: string | null;
  working_dir: string | null;
  metadata: Record<string, unknown>;
}

export interface HookResult {
  success: boolean;
  blocked: boolean;
  exit_code: number;
  stdout: string;
  stderr: string;
  decision: 'allow' | 'deny' | null;
  reason: string | null;
  additional_context: string | null;
  error: string | null;
}

/** One hook that ran, for HookExecutionEvents. */
export interface HookRun {
  event: HookEventName;
  command: string;
  result: HookResult;
  input: HookInput;
}

const MAX_OUTPUT = 1024 * 1024;

export function runHookCommand(
  hook: HookDefinition,
  input: HookInput,
  options: { cwd: string; signal?: AbortSignal },
): Promise<HookResult> {
  const failed = (error: string): HookResult => ({
    success: false,
    blocked: false,
    exit_code: -1,
    stdout: '',
    stderr: '',
    decision: null,
    reason: null,
    additional_context: null,
    error,
  });
  return new Promise((resolve) => {
    const env: Record<string, string> = {
      ...sanitizedEnv(),
      OPENHANDS_PROJECT_DIR: options.cwd,
      OPENHANDS_SESSION_ID: input.session_id ?? '',
      OPENHANDS_EVENT_TYPE: input.event_type,
      ...(input.tool_name ? { OPENHANDS_TOOL_NAME: input.tool_name } : {}),
    };
    let child: ReturnType<typeof spawn>;
    try {
      // detached: the hook gets its own process group, so a timeout kills whatever it started too.
      child = spawn('sh', ['-c', hook.command], { cwd: options.cwd, env, detached: true, stdio: 'pipe' });
    } catch (error) {
      resolve(failed(`Hook execution failed: ${(error as Error).message}`));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout!.on('data', (c: Buffer) => {
      if (outBytes < MAX_OUTPUT) out.push(c);
      outBytes += c.length;
    });
    child.stderr!.on('data', (c: Buffer) => {
      if (errBytes < MAX_OUTPUT) err.push(c);
      errBytes += c.length;
    });
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timeoutSeconds = hook.timeout ?? 60;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutSeconds * 1000);
    const onAbort = () => kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(failed(`Hook execution failed: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (timedOut) return resolve(failed(`Hook timed out after ${timeoutSeconds} seconds`));
      if (options.signal?.aborted) return resolve(failed('Hook cancelled by interrupt'));
      const exitCode = code ?? -1;
      const result: HookResult = {
        success: exitCode === 0,
        blocked: exitCode === 2,
        exit_code: exitCode,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        decision: null,
        reason: null,
        additional_context: null,
        error: null,
      };
      readDecision(result);
      resolve(result);
    });
    // A hook that does not read its stdin closes the pipe early; that is not an error.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify(input));
  });
}

/** Applies a JSON object printed on stdout (anything else on stdout is just output). */
function readDecision(result: HookResult): void {
  const text = result.stdout.trim();
  if (!text.startsWith('{')) return;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof data.decision === 'string') {
    const d = data.decision.toLowerCase();
    if (d === 'allow' || d === 'approve') result.decision = 'allow';
    if (d === 'deny' || d === 'block') {
      result.decision = 'deny';
      result.blocked = true;
    }
  }
  if (data.reason !== undefined && data.reason !== null) result.reason = String(data.reason);
  if (data.additionalContext !== undefined && data.additionalContext !== null)
    result.additional_context = String(data.additionalContext);
  if (data.continue === false) result.blocked = true;
}

/** Why a list of results blocked: the hook's reason, else its stderr, else a generic note. */
export function blockingReason(results: readonly HookResult[]): string | null {
  const blocker = results.find((r) => r.blocked);
  if (!blocker) return null;
  return blocker.reason || blocker.stderr.trim() || 'Blocked by hook';
}

/** The hooks of one conversation. `onRun` sees every hook that ran (for HookExecutionEvents). */
export class HookRunner {
  constructor(
    private readonly config: HookConfig,
    private readonly options: { workingDir: string; sessionId: string },
  ) {}

  has(event: HookEventName): boolean {
    return this.config[event].length > 0;
  }

  private input(event: HookEventName, fields: Partial<HookInput>): HookInput {
    return {
      event_type: HOOK_EVENT_TYPES[event],
      tool_name: null,
      tool_input: null,
      tool_response: null,
      message: null,
      session_id: this.options.sessionId,
      working_dir: this.options.workingDir,
      metadata: {},
      ...fields,
    };
  }

  /** Runs the hooks of an event in order; with `stopOnBlock`, the first block ends the list. */
  async run(
    event: HookEventName,
    fields: Partial<HookInput>,
    options: { stopOnBlock: boolean; signal?: AbortSignal },
  ): Promise<HookRun[]> {
    const hooks = hooksFor(this.config, event, fields.tool_name ?? null);
    const input = this.input(event, fields);
    const runs: HookRun[] = [];
    for (const hook of hooks) {
      const result = await runHookCommand(hook, input, {
        cwd: this.options.workingDir,
        signal: options.signal,
      });
      runs.push({ event, command: hook.command, result, input });
      if (options.stopOnBlock && result.blocked) break;
    }
    return runs;
  }

  async preToolUse(
    toolName: string,
    toolInput: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<{ blocked: string | null; runs: HookRun[] }> {
    const runs = await this.run(
      'pre_tool_use',
      { tool_name: toolName, tool_input: toolInput },
      { stopOnBlock: true, signal },
    );
    return { blocked: blockingReason(runs.map((r) => r.result)), runs };
  }

  postToolUse(
    toolName: string,
    toolInput: Record<string, unknown>,
    toolResponse: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<HookRun[]> {
    return this.run(
      'post_tool_use',
      { tool_name: toolName, tool_input: toolInput, tool_response: toolResponse },
      { stopOnBlock: false, signal },
    );
  }

  /** Stop hooks: `feedback` is what the agent is told when a hook refuses to let it stop. */
  async stop(
    reason: string,
    signal?: AbortSignal,
  ): Promise<{ stop: boolean; feedback: string | null; runs: HookRun[] }> {
    const runs = await this.run('stop', { metadata: { reason } }, { stopOnBlock: true, signal });
    const results = runs.map((r) => r.result);
    const blocked = blockingReason(results);
    if (blocked === null) return { stop: true, feedback: null, runs };
    const context = results.map((r) => r.additional_context).filter((c): c is string => !!c);
    return { stop: false, feedback: context.length ? context.join('\n') : blocked, runs };
  }

  /** UserPromptSubmit: may block the message and may add context to it. */
  async userPromptSubmit(
    message: string,
  ): Promise<{ blocked: string | null; additionalContext: string | null; runs: HookRun[] }> {
    const runs = await this.run('user_prompt_submit', { message }, { stopOnBlock: true });
    const results = runs.map((r) => r.result);
    const context = results.map((r) => r.additional_context).filter((c): c is string => !!c);
    return {
      blocked: blockingReason(results),
      additionalContext: context.length ? context.join('\n') : null,
      runs,
    };
  }

  sessionStart(): Promise<HookRun[]> {
    return this.run('session_start', {}, { stopOnBlock: false });
  }

  sessionEnd(): Promise<HookRun[]> {
    return this.run('session_end', {}, { stopOnBlock: false });
  }
}
