// A conversation's runtime reads its history from the store only when the agent needs it (a run):
// messages sent before that go to the store alone. The LLM must still see every event exactly once,
// in order: those from before the history was read, and those appended to it after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, finishStep, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

describe('history read on demand', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close({ remove: true }));

  const say = async (id: string, text: string, run: boolean) => {
    const res = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text }], run }),
    });
    expect(res.status).toBe(200);
  };
  /** The user texts of an LLM request, in order. */
  const userTexts = (messages: { role: string; content: unknown }[]) =>
    messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content).match(/m-\d/)?.[0]);

  it('gives the LLM every message once, sent before and after the history was loaded', async () => {
    const { id, key } = await startConversation(server, llm, [finishStep, finishStep], { message: '' });
    for (const text of ['m-1', 'm-2', 'm-3']) await say(id, text, false);
    await say(id, 'm-4', true);
    await waitForStatus(server, id, ['finished']);
    await say(id, 'm-5', true);
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    expect(events.filter((e) => e.kind === 'SystemPromptEvent')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'MessageEvent')).toHaveLength(5);

    const requests = llm.requestsFor(key);
    expect(requests).toHaveLength(2);
    const first = requests[0]!.body.messages as { role: string; content: unknown }[];
    const second = requests[1]!.body.messages as { role: string; content: unknown }[];
    expect(first.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(userTexts(first)).toEqual(['m-1', 'm-2', 'm-3', 'm-4']);
    expect(userTexts(second)).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
    // The first run's finish call and its result are in the second request, once.
    expect(second.filter((m) => m.role === 'tool')).toHaveLength(1);
  });
});
