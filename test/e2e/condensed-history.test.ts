// A long conversation that was condensed again and again: its runtime reads the log back page by
// page and keeps only what the agent needs (agent/resident-history.ts), the view as the last
// Condensation left it and what came after, and the LLM gets what it would get from the whole log.
// Also while it runs: a Condensation made during the run leaves the forgotten events behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyEvent, newEventId, nowTimestamp } from '../../src/events/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { allEvents, finishStep, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const made = (kind: string, source: string, rest: object) =>
  ({ id: newEventId(), timestamp: nowTimestamp(), source, kind, ...rest }) as unknown as AnyEvent;
const userMessage = (text: string) =>
  made('MessageEvent', 'user', { llm_message: { role: 'user', content: [{ type: 'text', text }] } });

/** A round of work: a user message and `steps` terminal steps (action, observation). */
function round(label: string, steps: number): AnyEvent[] {
  const events = [userMessage(label)];
  for (let i = 0; i < steps; i++) {
    const call = `call_${newEventId()}`;
    events.push(
      made('ActionEvent', 'agent', {
        thought: [],
        tool_name: 'terminal',
        tool_call_id: call,
        llm_response_id: `resp_${call}`,
        tool_call: { id: call, name: 'terminal', arguments: '{"command":"true"}', origin: 'completion' },
        action: { kind: 'TerminalAction', command: 'true' },
      }),
      made('ObservationEvent', 'environment', {
        tool_name: 'terminal',
        tool_call_id: call,
        observation: {
          kind: 'TerminalObservation',
          command: 'true',
          exit_code: 0,
          content: [{ type: 'text', text: `${label} out ${i}` }],
          metadata: { exit_code: 0, prefix: '', suffix: '' },
        },
      }),
    );
  }
  return events;
}

/** A Condensation that forgets `events` and sums them up after the system prompt and the task. */
const condensation = (events: readonly AnyEvent[], summary: string) =>
  made('Condensation', 'environment', {
    forgotten_event_ids: events.map((e) => e.id),
    summary,
    summary_offset: 2,
    llm_response_id: `resp_${newEventId()}`,
  });

const ROUNDS = 60;
const llm = new ScriptedLLM();
let server: TestServer;
const dataDir = tempDir();

/** The history the conversation's runtime keeps (test-only: the service's runtimes are its own). */
const resident = (id: string) =>
  (
    server.conversations as unknown as { runtimes: { get(id: string): { events(): readonly AnyEvent[] } } }
  ).runtimes
    .get(id)!
    .events();

/** The texts of the LLM's last request, one string per message. */
function lastRequestTexts(): string[] {
  const messages = llm.requests.at(-1)!.body.messages as { content?: unknown }[];
  return messages.map((m) => JSON.stringify(m.content ?? ''));
}

beforeAll(async () => {
  await llm.start();
  server = await startServer({ dataDir });
});
afterAll(async () => {
  await server.close();
  await llm.stop();
});

describe('a long, condensed conversation', () => {
  it('resumes with the view of its last Condensation resident, and the LLM sees what the whole log gives', async () => {
    const { id } = await startConversation(server, llm, [finishStep, finishStep], { message: 'Task one' });
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    await server.close();
    const store = openSqliteStore({ path: `${dataDir}/agentd.db` });
    for (let r = 0; r < ROUNDS; r++) {
      const work = round(`round ${r}`, 20);
      await store.events.append(id, [...work, condensation(work, `summary ${r}`)]);
    }
    await store.events.append(id, round('round last', 2));
    await store.close();
    server = await startServer({ dataDir });
    const stored = (await allEvents(server, id)).length;
    expect(stored).toBeGreaterThan(ROUNDS * 41);

    const sent = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Task two' }], run: true }),
    });
    expect(sent.status).toBe(200);
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');

    const texts = lastRequestTexts().join('\n');
    for (const seen of ['Task one', `summary ${ROUNDS - 1}`, 'round last out 1', 'Task two'])
      expect(texts).toContain(seen);
    for (const gone of [`summary ${ROUNDS - 2}`, 'round 0', `round ${ROUNDS - 1} out`])
      expect(texts).not.toContain(gone);
    // The view and what followed the last Condensation: tens of events, of the thousands stored.
    expect(resident(id).length).toBeLessThan(40);
    expect((await allEvents(server, id)).filter((e) => e.kind === 'SystemPromptEvent')).toHaveLength(1);
  });
});
