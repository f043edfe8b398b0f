// The cap on live conversation runtimes: past it the least recently used idle conversation's runtime
// is closed (its shell ends) and is built again, from the store, when the conversation is used.
// Running conversations and ones waiting for confirmation are never closed for the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  finishStep,
  info,
  startConversation,
  terminalOutputs,
  terminalStep,
  waitForEvent,
  waitForStatus,
} from '../support/conversation.js';
import { isAlive, waitUntil } from '../support/process.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

describe('live runtimes past the cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxLiveConversations: 2 });
  });
  afterAll(() => server.close({ remove: true }));

  it('closes the least recently used idle runtime, and the conversation still works after', async () => {
    const first = await startConversation(server, llm, [
      terminalStep('echo $$'),
      finishStep,
      terminalStep('echo back-again'),
      finishStep,
    ]);
    await waitForStatus(server, first.id, ['finished']);
    const pid = Number(terminalOutputs(await allEvents(server, first.id))[0]);
    expect(isAlive(pid)).toBe(true);

    for (const _ of [1, 2]) {
      const other = await startConversation(server, llm, [terminalStep('echo other'), finishStep]);
      await waitForStatus(server, other.id, ['finished']);
    }
    expect(server.conversations.liveRuntimes).toBe(2);
    await waitUntil(() => !isAlive(pid));

    const res = await api(server, `/api/conversations/${first.id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Once more.' }], run: true }),
    });
    expect(res.status).toBe(200);
    await waitForStatus(server, first.id, ['finished']);
    expect(terminalOutputs(await allEvents(server, first.id))).toEqual([String(pid), 'back-again']);
    // The rebuilt runtime's agent saw the whole history: the LLM got the first run's messages too.
    const last = llm.requestsFor(first.key).at(-1)!;
    expect(JSON.stringify(last.body)).toContain('Once more.');
    expect(JSON.stringify(last.body)).toContain(String(pid));
    expect(server.conversations.liveRuntimes).toBe(2);
  });
});

describe('runtimes in use are kept past the cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxLiveConversations: 1, toolOptions: { noChangeTimeoutSeconds: 60 } });
  });
  afterAll(() => server.close({ remove: true }));

  it('keeps a running conversation and one waiting for confirmation', async () => {
    const running = await startConversation(server, llm, [terminalStep('sleep 120'), finishStep]);
    await waitForEvent(server, running.id, (e) => e.kind === 'ActionEvent' && e.tool_name === 'terminal');
    const waiting = await startConversation(server, llm, [terminalStep('echo confirmed'), finishStep], {
      confirmation_policy: { kind: 'AlwaysConfirm' },
    });
    await waitForStatus(server, waiting.id, ['waiting_for_confirmation']);
    const idle = await startConversation(server, llm, [finishStep]);
    await waitForStatus(server, idle.id, ['finished']);

    // Over the cap of one: the running and the waiting conversation stay; the finished one goes.
    await waitUntil(() => server.conversations.liveRuntimes === 2);
    expect((await info(server, running.id)).execution_status).toBe('running');
    expect((await info(server, waiting.id)).execution_status).toBe('waiting_for_confirmation');

    // Once its run has ended, the interrupted conversation is idle, and goes too.
    await api(server, `/api/conversations/${running.id}/interrupt`, { method: 'POST' });
    await waitForStatus(server, running.id, ['paused']);
    await waitUntil(() => server.conversations.liveRuntimes === 1);
  });
});
