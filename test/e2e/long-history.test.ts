// What a long conversation costs the questions that need only one end of it: its agent's final
// response, a move of HEAD (POST /navigate, known or unknown event), the next message after one, and
// recovery after a restart read back only as far as they need, not the whole log (which for 100k
// events took 0.6–1 s of synchronous parsing, /health waiting as long). Measured here as the rows
// the real SQLite store hands out (its reads by page and by range); the answers are the ones the
// whole branch gives. And a long conversation condensed again and again resumes with only what its
// agent needs resident (agent/resident-history.ts): the view its last Condensation left and what came
// after, the LLM sent what the whole log gives.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AnyEvent, newEventId, nowTimestamp } from '../../src/events/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { SqliteEvents } from '../../src/store/sqlite/events.js';
import {
  allEvents,
  type Ev,
  finishStep,
  residentHistory,
  startConversation,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

/** Events the store hands out through its log reads (`after`, `range`); counted from the next open. */
let rows = 0;
for (const name of ['after', 'range'] as const) {
  const original = SqliteEvents.prototype[name] as (...args: unknown[]) => Promise<unknown[]>;
  const counted = async function (this: SqliteEvents, ...args: unknown[]) {
    const page = await original.apply(this, args);
    rows += page.length;
    return page;
  };
  vi.spyOn(SqliteEvents.prototype, name).mockImplementation(counted as never);
}

/** Rows read while `work` runs (the server is otherwise idle). */
async function rowsReadBy<T>(work: () => Promise<T>): Promise<{ result: T; rows: number }> {
  rows = 0;
  const result = await work();
  return { result, rows };
}

const LONG = 3_000;
const ROUNDS = 60;

const made = (kind: string, source: string, rest: object) =>
  ({ id: newEventId(), timestamp: nowTimestamp(), source, kind, ...rest }) as unknown as AnyEvent;
const userMessage = (text: string) =>
  made('MessageEvent', 'user', { llm_message: { role: 'user', content: [{ type: 'text', text }] } });

/** `n` events after an agent's finish: a terminal step (action, observation) and a user message each. */
function laterEvents(n: number): AnyEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const call = `call_later_${i}`;
    if (i % 3 === 0)
      return made('ActionEvent', 'agent', {
        tool_name: 'terminal',
        tool_call_id: call,
        llm_response_id: `resp_later_${i}`,
        action: { kind: 'TerminalAction', command: `echo ${i}` },
      });
    if (i % 3 === 1)
      return made('ObservationEvent', 'environment', {
        tool_name: 'terminal',
        tool_call_id: `call_later_${i - 1}`,
      });
    return userMessage(`later ${i}`);
  });
}

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

const llm = new ScriptedLLM();
let server: TestServer;
const dataDir = tempDir();

beforeAll(async () => {
  await llm.start();
  server = await startServer({ dataDir });
});
afterAll(async () => {
  await server.close();
  await llm.stop();
});

/** The texts of the LLM's last request, one string per message. */
function lastRequestTexts(): string[] {
  const messages = llm.requests.at(-1)!.body.messages as { content?: unknown }[];
  return messages.map((m) => JSON.stringify(m.content ?? ''));
}

/** Stops the server, does `work` on its store file, and starts a new one (no runtime, nothing loaded). */
async function offline(work: (store: ReturnType<typeof openSqliteStore>) => Promise<void>): Promise<number> {
  await server.close();
  const store = openSqliteStore({ path: `${dataDir}/agentd.db` });
  await work(store);
  await store.close();
  const { rows: atStart } = await rowsReadBy(async () => {
    server = await startServer({ dataDir });
  });
  return atStart;
}

const finalResponse = async (id: string) =>
  (
    (await (await api(server, `/api/conversations/${id}/agent_final_response`)).json()) as {
      response: string;
    }
  ).response;
const navigate = (id: string, eventId: string | null) =>
  api(server, `/api/conversations/${id}/navigate`, {
    method: 'POST',
    body: JSON.stringify({ event_id: eventId }),
  });

describe('a long conversation', () => {
  it('answers agent_final_response, navigate and the next message reading only the end they need', async () => {
    const { id } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'finish', arguments: { message: 'the far answer' } }] }],
      { message: 'Task one' },
    );
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    const early = await allEvents(server, id);
    const finish = early.find((e) => e.kind === 'ActionEvent')!;
    const task = early.find((e) => e.kind === 'MessageEvent')!;
    await offline((store) => store.events.append(id, laterEvents(LONG)).then(() => undefined));

    // The finish is 3,000 events back: a thousand actions are looked at, and no other event.
    const answered = await rowsReadBy(() => finalResponse(id));
    expect(answered.result).toBe('the far answer');
    expect(answered.rows).toBeLessThan(LONG / 2);

    // Moving HEAD looks up the one event: nothing of the log is read, for a known or an unknown one.
    const unknown = await rowsReadBy(() => navigate(id, randomUUID()));
    expect(unknown.result.status).toBe(404);
    expect(((await unknown.result.json()) as { detail: string }).detail).toContain('event_id');
    expect(unknown.rows).toBe(0);
    const moved = await rowsReadBy(() => navigate(id, finish.id));
    expect(moved.result.status).toBe(200);
    expect(moved.rows).toBe(0);

    // On the branch that ends at the finish, the finish is the answer; on one that ends before it, none.
    const onBranch = await rowsReadBy(() => finalResponse(id));
    expect(onBranch.result).toBe('the far answer');
    expect(onBranch.rows).toBeLessThan(5);
    expect((await navigate(id, task.id)).status).toBe(200);
    expect(await finalResponse(id)).toBe('');

    // The next message asks whether the branch has its system prompt: the branch's first one, read alone.
    const sent = await rowsReadBy(() =>
      api(server, `/api/conversations/${id}/events`, {
        method: 'POST',
        body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Task two' }], run: false }),
      }),
    );
    expect(sent.result.status).toBe(200);
    expect(sent.rows).toBe(1);
    const after = await allEvents(server, id);
    expect(after.filter((e) => e.kind === 'SystemPromptEvent')).toHaveLength(1);
  });

  it('recovers a conversation left running behind a long history, reading back only its last batch', async () => {
    const { id } = await startConversation(server, llm, [finishStep]);
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    const response = `resp_${randomUUID()}`;
    const batch = ['echo one', 'sleep 60'].map(
      (command, i) =>
        ({
          id: newEventId(),
          timestamp: nowTimestamp(),
          source: 'agent',
          kind: 'ActionEvent',
          tool_name: 'terminal',
          tool_call_id: `call_cut_${i}`,
          llm_response_id: response,
          action: { kind: 'TerminalAction', command },
        }) as unknown as AnyEvent,
    );
    const answered = {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'environment',
      kind: 'ObservationEvent',
      tool_name: 'terminal',
      tool_call_id: 'call_cut_0',
    } as unknown as AnyEvent;
    const atStart = await offline(async (store) => {
      await store.events.append(id, [...laterEvents(LONG), ...batch, answered], {
        executionStatus: 'running',
      });
    });
    expect(atStart).toBeLessThan(100);

    const events = await allEvents(server, id);
    const recovery = events.slice(-3) as Ev[];
    expect(recovery.map((e) => e.kind)).toEqual([
      'AgentErrorEvent',
      'ConversationErrorEvent',
      'ConversationStateUpdateEvent',
    ]);
    expect(recovery[0]).toMatchObject({ tool_call_id: 'call_cut_1', tool_name: 'terminal' });
    expect(recovery[1]!.detail).toContain('1 tool call(s) did not finish');
    expect(recovery[2]).toMatchObject({ key: 'execution_status', value: 'error' });
  });
});

describe('a long, condensed conversation', () => {
  it('resumes with the view of its last Condensation resident, and the LLM sees what the whole log gives', async () => {
    const { id } = await startConversation(server, llm, [finishStep, finishStep], { message: 'Task one' });
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    await offline(async (store) => {
      for (let r = 0; r < ROUNDS; r++) {
        const work = round(`round ${r}`, 20);
        await store.events.append(id, [...work, condensation(work, `summary ${r}`)]);
      }
      await store.events.append(id, round('round last', 2));
    });
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
    expect(residentHistory(server, id).length).toBeLessThan(40);
    expect((await allEvents(server, id)).filter((e) => e.kind === 'SystemPromptEvent')).toHaveLength(1);
  });
});
