// A conversation's shell is closed once unused for the terminal idle time (set through the server's
// toolOptions), and the conversation's next terminal command gets a new shell in the same directory.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;
beforeAll(async () => {
  await llm.start();
  server = await startServer({ toolOptions: { terminalIdleSeconds: 0.05 } });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const terminal = (command: string) => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] });
const finish = { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };

function terminalOutputs(events: Ev[]): string[] {
  return events
    .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal')
    .map((e) => ((e.observation as { content: { text: string }[] }).content[0]?.text ?? '').trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('an idle conversation terminal', () => {
  it('is closed after the idle time and comes back on the next command', async () => {
    const workingDir = tempDir('agentd-ws-');
    mkdirSync(join(workingDir, 'sub'));
    const { id } = await startConversation(
      server,
      llm,
      [terminal('cd sub && echo $$'), finish, terminal('pwd'), finish],
      { workingDir },
    );
    await waitForStatus(server, id, ['finished']);
    const pid = Number(terminalOutputs(await allEvents(server, id))[0]);
    expect(pid).toBeGreaterThan(0);
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));

    const res = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Where are you?' }], run: true }),
    });
    expect(res.status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    expect(terminalOutputs(await allEvents(server, id))).toEqual([String(pid), join(workingDir, 'sub')]);
  });
});
