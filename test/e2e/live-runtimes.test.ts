// The cap on live conversation runtimes: past it the least recently used idle conversation's runtime
// is closed (its shell ends) and is built again, from the store, when the conversation is used.
// Running conversations and ones waiting for confirmation are never closed for the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  info,
  startConversation,
  waitForEvent,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

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

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

describe('live runtimes past the cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxLiveConversations: 2 });
  });
  afterAll(() => server.close({ remove: true }));

  it('closes the least recently used idle runtime, and the conversation still works after', async () => {
    const first = await startConversation(server, llm, [
      terminal('echo $$'),
      finish,
      terminal('echo back-again'),
      finish,
    ]);
    await waitForStatus(server, first.id, ['finished']);
    const pid = Number(terminalOutputs(await allEvents(server, first.id))[0]);
    expect(alive(pid)).toBe(true);

    for (const _ of [1, 2]) {
      const other = await startConversation(server, llm, [terminal('echo other'), finish]);
      await waitForStatus(server, other.id, ['finished']);
    }
    expect(server.conversations.liveRuntimes).toBe(2);
    await until(() => !alive(pid));

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
    const running = await startConversation(server, llm, [terminal('sleep 120'), finish]);
    await waitForEvent(server, running.id, (e) => e.kind === 'ActionEvent' && e.tool_name === 'terminal');
    const waiting = await startConversation(server, llm, [terminal('echo confirmed'), finish], {
      confirmation_policy: { kind: 'AlwaysConfirm' },
    });
    await waitForStatus(server, waiting.id, ['waiting_for_confirmation']);
    const idle = await startConversation(server, llm, [finish]);
    await waitForStatus(server, idle.id, ['finished']);

    // Over the cap of one: the running and the waiting conversation stay; the finished one goes.
    await until(() => server.conversations.liveRuntimes === 2);
    expect((await info(server, running.id)).execution_status).toBe('running');
    expect((await info(server, waiting.id)).execution_status).toBe('waiting_for_confirmation');

    // Once its run has ended, the interrupted conversation is idle, and goes too.
    await api(server, `/api/conversations/${running.id}/interrupt`, { method: 'POST' });
    await waitForStatus(server, running.id, ['paused']);
    await until(() => server.conversations.liveRuntimes === 1);
  });
});
