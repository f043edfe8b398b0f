// A conversation's shell is closed once unused for the terminal idle time (set through the server's
// toolOptions), and the conversation's next terminal command gets a new shell in the same directory.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  finishStep,
  startConversation,
  terminalOutputs,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { isAlive, waitUntil } from '../support/process.js';
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

describe('an idle conversation terminal', () => {
  it('is closed after the idle time and comes back on the next command', async () => {
    const workingDir = tempDir('agentd-ws-');
    mkdirSync(join(workingDir, 'sub'));
    const { id } = await startConversation(
      server,
      llm,
      [terminalStep('cd sub && echo $$'), finishStep, terminalStep('pwd'), finishStep],
      { workingDir },
    );
    await waitForStatus(server, id, ['finished']);
    const pid = Number(terminalOutputs(await allEvents(server, id))[0]);
    expect(pid).toBeGreaterThan(0);
    await waitUntil(() => !isAlive(pid));

    const res = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Where are you?' }], run: true }),
    });
    expect(res.status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    expect(terminalOutputs(await allEvents(server, id))).toEqual([String(pid), join(workingDir, 'sub')]);
  });
});
