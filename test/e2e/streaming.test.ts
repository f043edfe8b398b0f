// llm.stream end to end, for each provider API, through the real SDKs and the scripted server's
// server-sent events: WebSocket readers get StreamingDeltaEvents (not stored) before the final events,
// which are those of the same run without streaming; REST and replays never show a delta.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../src/llm/index.js';
import { waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, type WsClient, wsUrl } from '../support/ws.js';

type Event = Record<string, unknown> & { kind: string; id: string };
type Envelope = { seq: number | null; event: Event };

const llm = new ScriptedLLM();
let server: TestServer;
beforeAll(async () => {
  await llm.start();
  server = await startServer({ keys: ['stream-ws-key'] });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const apis: { api: string; model: string; reasoning: (text: string) => Partial<ScriptStep> }[] = [
  { api: 'chat', model: 'openai/gpt-4o', reasoning: (text) => ({ reasoning: text }) },
  {
    api: 'responses',
    model: 'openai/gpt-5-mini',
    reasoning: (text) => ({ reasoningItem: { id: `rs_${text.length}`, summary: [text] } }),
  },
  {
    api: 'messages',
    model: 'anthropic/claude-haiku-4-5', // thinks with a budget: its thinking must go back with the tool result
    reasoning: (text) => ({ thinking: [{ thinking: text, signature: 'sig' }] }),
  },
];

/** Two steps: a tool call with text and reasoning, then a final answer with reasoning. */
const script = (reasoning: (text: string) => Partial<ScriptStep>): ScriptStep[] => [
  {
    text: 'Let me look at it.',
    ...reasoning('First I list the files.'),
    toolCalls: [{ name: 'terminal', arguments: { command: 'echo streamed output' }, id: 'call_echo' }],
  },
  { text: 'All done, the output was printed.', ...reasoning('The command worked.') },
];

async function start(
  model: string,
  stream: boolean,
  steps: ScriptStep[],
  workingDir: string,
): Promise<string> {
  const key = `sk-${randomUUID()}`;
  llm.script(key, steps);
  const res = await api(server, '/api/conversations', {
    method: 'POST',
    body: JSON.stringify({
      agent: {
        kind: 'Agent',
        llm: {
          model,
          api_key: key,
          base_url: model.startsWith('anthropic/') ? llm.url : llm.openaiBaseUrl,
          num_retries: 0,
          usage_id: 'agent',
          stream,
          reasoning_summary: 'auto', // the Responses API's reasoning comes as summaries, when asked for
        },
        tools: [{ name: 'terminal' }],
      },
      workspace: { working_dir: workingDir },
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const socket = (id: string, query = '') =>
  connect(wsUrl(server.url, `/sockets/events/${id}?session_api_key=stream-ws-key${query}`));

/** Runs the conversation with one message while a reader watches; the reader's frames. */
async function runWatched(id: string): Promise<{ client: WsClient; frames: Envelope[] }> {
  const client = await socket(id, '&after_seq=0');
  await client.next((f) => (f as Envelope).event?.key === 'full_state');
  const res = await api(server, `/api/conversations/${id}/events`, {
    method: 'POST',
    body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Print something.' }], run: true }),
  });
  expect(res.status).toBe(200);
  await waitForStatus(server, id, ['finished', 'idle', 'error']);
  const stored = await storedEvents(id);
  const lastSeq = stored.length;
  await client.next((f) => (f as Envelope).seq === lastSeq);
  return { client, frames: client.frames as Envelope[] };
}

async function storedEvents(id: string): Promise<Event[]> {
  const res = await api(server, `/api/conversations/${id}/events/search?limit=100`);
  return ((await res.json()) as { items: Event[] }).items;
}

const isDelta = (f: Envelope) => f.event?.kind === 'StreamingDeltaEvent';
const joined = (deltas: Envelope[], member: 'content' | 'reasoning_content') =>
  deltas.map((d) => d.event[member] ?? '').join('');

/** What a run produced, without what differs between any two runs (ids, times, response ids). */
function comparable(events: Event[]): unknown[] {
  const drop = new Set(['id', 'timestamp', 'llm_response_id', 'action_id', 'pid']);
  const strip = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(strip)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>)
              .filter(([k]) => !drop.has(k))
              .map(([k, x]) => [k, strip(x)]),
          )
        : v;
  // State updates carry stats (latencies) that differ from run to run: their keys are compared.
  return events.map((e) =>
    e.kind === 'ConversationStateUpdateEvent' ? { kind: e.kind, key: e.key } : strip(e),
  );
}

describe.each(apis)('llm.stream over $api', ({ model, reasoning }) => {
  it('sends the deltas to WebSocket readers before the final events, which match a run without streaming', async () => {
    const workingDir = tempDir('agentd-stream-');
    const streamed = await start(model, true, script(reasoning), workingDir);
    const { client, frames } = await runWatched(streamed);
    client.close();

    // Every delta is transient (seq null) and has OpenHands' members, nothing else.
    const deltas = frames.filter(isDelta);
    for (const d of deltas) {
      expect(d.seq).toBeNull();
      expect(Object.keys(d.event).sort()).toEqual([
        'content',
        'id',
        'kind',
        'reasoning_content',
        'source',
        'timestamp',
      ]);
      expect(d.event.source).toBe('agent');
      expect((d.event.content === null) !== (d.event.reasoning_content === null)).toBe(true);
    }
    // The first step's deltas come before its ActionEvent, the second's before the final message.
    const actionAt = frames.findIndex((f) => f.event?.kind === 'ActionEvent');
    const answerAt = frames.findIndex((f) => f.event?.kind === 'MessageEvent' && f.event.source === 'agent');
    expect(actionAt).toBeGreaterThan(0);
    expect(answerAt).toBeGreaterThan(actionAt);
    const first = frames.slice(0, actionAt).filter(isDelta);
    const second = frames.slice(actionAt, answerAt).filter(isDelta);
    expect(joined(first, 'content')).toBe('Let me look at it.');
    expect(joined(first, 'reasoning_content')).toBe('First I list the files.');
    expect(joined(second, 'content')).toBe('All done, the output was printed.');
    expect(joined(second, 'reasoning_content')).toBe('The command worked.');
    expect(first.filter((d) => d.event.content !== null).length).toBeGreaterThan(1);
    expect(frames.slice(answerAt).filter(isDelta)).toEqual([]);

    // REST never shows a delta; the stored events are those of the same run without streaming.
    const stored = await storedEvents(streamed);
    expect(stored.map((e) => e.kind)).not.toContain('StreamingDeltaEvent');
    const byKind = await api(server, `/api/conversations/${streamed}/events/search?kind=StreamingDeltaEvent`);
    expect(((await byKind.json()) as { items: unknown[] }).items).toEqual([]);
    const plain = await start(model, false, script(reasoning), workingDir);
    const plainRun = await runWatched(plain);
    plainRun.client.close();
    expect(plainRun.frames.filter(isDelta)).toEqual([]);
    expect(comparable(stored)).toEqual(comparable(await storedEvents(plain)));
    const observation = stored.find((e) => e.kind === 'ObservationEvent');
    expect(JSON.stringify(observation)).toContain('streamed output');

    // A reader that replays from the start gets the stored events and no delta.
    const replay = await socket(streamed, '&after_seq=0');
    await replay.next((f) => (f as Envelope).seq === stored.length);
    expect((replay.frames as Envelope[]).filter(isDelta)).toEqual([]);
    replay.close();
  });
});

it('requests go to the provider with stream: true only when the LLM asks for it', async () => {
  const requests = llm.requests.filter((r) => r.body.stream === true);
  expect(new Set(requests.map((r) => r.api))).toEqual(new Set(['chat', 'responses', 'messages']));
  expect(llm.requests.some((r) => r.body.stream === undefined)).toBe(true);
});

it('an interrupt half-way through a streamed answer stops it: no answer is stored', async () => {
  const id = await start(
    'anthropic/claude-sonnet-4',
    true,
    [{ text: 'A long answer that is streamed slowly, word by word, to the reader.', streamGapMs: 200 }],
    tempDir('agentd-stream-'),
  );
  const client = await socket(id);
  await client.next((f) => (f as Event).key === 'full_state');
  await api(server, `/api/conversations/${id}/events`, {
    method: 'POST',
    body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Talk.' }], run: true }),
  });
  await client.next((f) => (f as Event).kind === 'StreamingDeltaEvent');
  expect((await api(server, `/api/conversations/${id}/interrupt`, { method: 'POST' })).status).toBe(200);
  await waitForStatus(server, id, ['paused', 'idle', 'finished', 'error']);
  client.close();
  const stored = await storedEvents(id);
  expect(stored.some((e) => e.kind === 'MessageEvent' && e.source === 'agent')).toBe(false);
  expect(stored.map((e) => e.kind)).not.toContain('StreamingDeltaEvent');
});
