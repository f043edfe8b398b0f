// Condensation through real conversations: agentd over HTTP on loopback, the scripted LLM as the only
// fake. The scripted server records every request, so the tests read what the LLM was really sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROMPT_EVENT_CHARS } from '../../src/agent/condenser-prompt.js';
import {
  allEvents,
  type Ev,
  info,
  residentHistory,
  shape,
  startConversation,
  summarizer,
  waitForStatus,
  withoutStats,
} from '../support/conversation.js';
import { type RecordedRequest, ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer({ keys: ['test-key-1', 'small-condenser-user', 'no-condenser-user'] });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

/** The server as seen by another user (session key): settings and conversations are per user. */
const as = (key: string): TestServer => ({ ...server, key });

type Message = { role: string; content?: string | { text?: string }[] | null; tool_calls?: { id: string }[] };
type Call = { id: string };

const messagesOf = (r: RecordedRequest) => r.body.messages as (Message & { tool_call_id?: string })[];
const textOf = (m: Message) =>
  typeof m.content === 'string' ? m.content : (m.content ?? []).map((c) => c.text ?? '').join('');
/** Summaries are asked for without tools; the agent always offers its tools. */
const isSummaryRequest = (r: RecordedRequest) => r.body.tools === undefined;

/** Agent steps in order; summary requests answered with SUMMARY-1, SUMMARY-2, … */
function scripted(steps: ScriptStep[]) {
  let agent = 0;
  let summaries = 0;
  return (request: RecordedRequest): ScriptStep =>
    isSummaryRequest(request) ? { text: `SUMMARY-${++summaries}` } : (steps[agent++] ?? { text: 'done' });
}

const echo = (i: number, parallel = 1): ScriptStep => ({
  toolCalls: Array.from({ length: parallel }, (_, j) => ({
    name: 'terminal',
    arguments: { command: `echo step-${i}-${j}` },
  })),
});
const finish: ScriptStep = { toolCalls: [{ name: 'finish', arguments: { message: 'finished' } }] };

/** Every tool call is answered right after its assistant message, and every answer has its call. */
function pairsIntact(messages: (Message & { tool_call_id?: string })[]): boolean {
  let open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id!)) return false;
      continue;
    }
    if (open.size > 0) return false;
    open = new Set((m.tool_calls ?? []).map((c: Call) => c.id));
  }
  return open.size === 0;
}

async function saveSettings(key: string, settings: Record<string, unknown>) {
  const res = await api(as(key), '/api/settings', { method: 'POST', body: JSON.stringify(settings) });
  expect(res.status).toBe(200);
}

describe('condensation', () => {
  it('condenses a long conversation: the next LLM request holds the summary, not the forgotten events', async () => {
    const user = 'small-condenser-user';
    await saveSettings(user, { condenser_max_size: 20 });
    // Every third step calls two tools at once, so cuts have batches to respect.
    const steps = [...Array.from({ length: 24 }, (_, i) => echo(i, i % 3 === 2 ? 2 : 1)), finish];
    const { id, key } = await startConversation(as(user), llm, scripted(steps), { tools: ['terminal'] });
    expect(await waitForStatus(as(user), id, ['finished', 'error', 'stuck'], 60_000)).toBe('finished');

    const events = await allEvents(as(user), id);
    const byId = new Map(events.map((e) => [e.id, e]));
    const condensations = events.filter((e) => e.kind === 'Condensation');
    expect(condensations.length).toBeGreaterThanOrEqual(2);
    const [first, second] = condensations as (Ev & { forgotten_event_ids: string[] })[];
    // The wire shape of the spec, nothing more.
    expect(Object.keys(first!).sort()).toEqual(
      [
        'forgotten_event_ids',
        'id',
        'kind',
        'llm_response_id',
        'source',
        'summary',
        'summary_offset',
        'timestamp',
      ].sort(),
    );
    expect(first).toMatchObject({ source: 'environment', summary: 'SUMMARY-1', summary_offset: 4 });
    expect(first!.llm_response_id).toMatch(/^chatcmpl-scripted-/);
    // The second one folds the first summary in: its id is among the forgotten.
    expect(second!.forgotten_event_ids).toContain(`${first!.id}-summary`);
    expect(second!.summary).toBe('SUMMARY-2');

    // The event log keeps every event: all 33 calls (24 steps, 8 of them double, and finish).
    expect(events.filter((e) => e.kind === 'ActionEvent')).toHaveLength(33);
    expect(events.filter((e) => e.kind === 'ObservationEvent')).toHaveLength(33);
    // While the runtime keeps only what its agent needs: what the last Condensation forgot is gone.
    const newest = condensations.at(-1) as Ev & { forgotten_event_ids: string[] };
    const resident = new Set(residentHistory(as(user), id).map((e) => e.id));
    expect(resident.size).toBeLessThan(events.length / 2);
    for (const forgotten of newest.forgotten_event_ids) expect(resident.has(forgotten)).toBe(false);

    const requests = llm.requestsFor(key);
    const summaryRequests = requests.filter(isSummaryRequest);
    expect(summaryRequests.length).toBe(condensations.length);
    // The summarizer is shown the forgotten events, and later the summary it wrote before.
    const firstForgottenCommand = (byId.get(first!.forgotten_event_ids[0]!)!.action as { command: string })
      .command;
    expect(textOf(messagesOf(summaryRequests[0]!)[0]!)).toContain(firstForgottenCommand);
    expect(textOf(messagesOf(summaryRequests[1]!)[0]!)).toContain('SUMMARY-1');

    const agentRequests = requests.filter((r) => !isSummaryRequest(r));
    // No request ever split a tool call from its result.
    for (const r of agentRequests) expect(pairsIntact(messagesOf(r))).toBe(true);

    // The first request after the first condensation: head, summary, then the kept tail.
    const after = agentRequests.find((r) => messagesOf(r).some((m) => textOf(m).includes('SUMMARY-1')))!;
    const messages = messagesOf(after);
    expect(messages.map((m) => m.role).slice(0, 5)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(textOf(messages[1]!)).toBe('Do the task.');
    expect(textOf(messages[4]!)).toContain('SUMMARY-1');
    const sent = JSON.stringify(messages);
    const forgottenCalls = first!.forgotten_event_ids
      .map((e) => byId.get(e))
      .filter((e) => e?.kind === 'ActionEvent')
      .map((e) => e!.tool_call_id as string);
    expect(forgottenCalls.length).toBeGreaterThan(0);
    for (const call of forgottenCalls) expect(sent).not.toContain(call);
    // Much shorter than the history it stands for.
    expect(messages.length).toBeLessThanOrEqual(20);

    // The last request shows only the latest summary.
    const last = JSON.stringify(messagesOf(agentRequests[agentRequests.length - 1]!));
    expect(last).toContain(`SUMMARY-${condensations.length}`);
    expect(last).not.toContain('SUMMARY-1"');
  });

  it('POST /condense condenses at once, with a summarizer LLM of its own, and the next call sees it', async () => {
    const summarizerKey = `sk-${randomUUID()}`;
    llm.script(summarizerKey, () => ({ text: 'SUMMARY-FORCED' }));
    const steps = [...Array.from({ length: 6 }, (_, i) => echo(i)), finish, { text: 'Noted.' }];
    const { id, key } = await startConversation(server, llm, steps, {
      tools: ['terminal'],
      agent: { condenser: summarizer(llm, summarizerKey, 100) },
    });
    await waitForStatus(server, id, ['finished']);
    expect(llm.requestsFor(summarizerKey)).toHaveLength(0);

    const res = await api(server, `/api/conversations/${id}/condense`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    const events = await allEvents(server, id);
    expect(withoutStats(shape(events)).slice(-2)).toEqual(['CondensationRequest', 'Condensation']);
    const condensation = events[events.length - 1] as Ev & { forgotten_event_ids: string[] };
    expect(condensation).toMatchObject({ summary: 'SUMMARY-FORCED', summary_offset: 4 });
    expect(llm.requestsFor(summarizerKey)).toHaveLength(1);

    // The conversation's info shows the condenser with its key masked, and the summarizer's usage.
    const conversation = (await info(server, id)) as {
      agent: { condenser: Record<string, unknown> & { llm: { api_key: string } } };
      stats: { usage_to_metrics: Record<string, unknown> };
    };
    expect(conversation.agent.condenser).toMatchObject({ kind: 'LLMSummarizingCondenser', max_size: 100 });
    expect(conversation.agent.condenser.llm.api_key).toBe('**********');
    expect(JSON.stringify(conversation)).not.toContain(summarizerKey);
    expect(Object.keys(conversation.stats.usage_to_metrics).sort()).toEqual(['agent', 'condenser']);

    const send = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Anything else?' }], run: true }),
    });
    expect(send.status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    const next = messagesOf(llm.requestsFor(key).at(-1)!);
    const sent = JSON.stringify(next);
    expect(sent).toContain('SUMMARY-FORCED');
    expect(textOf(next[next.length - 1]!)).toBe('Anything else?');
    expect(pairsIntact(next)).toBe(true);
    for (const forgotten of condensation.forgotten_event_ids) {
      const e = events.find((x) => x.id === forgotten)!;
      if (e.kind === 'ActionEvent') expect(sent).not.toContain(e.tool_call_id as string);
    }

    const missing = await api(server, `/api/conversations/${randomUUID()}/condense`, { method: 'POST' });
    expect(missing.status).toBe(404);
  });

  it('sums up a part too long for one prompt in calls of a bounded size, each merging the summary so far', async () => {
    const summarizerKey = `sk-${randomUUID()}`;
    let part = 0;
    llm.script(summarizerKey, () => ({ text: `PART-${++part}` }));
    // 100 steps of ~3,600 characters of output each: half of that view is ~190k characters to sum up.
    const big = (i: number): ScriptStep => ({
      toolCalls: [
        { name: 'terminal', arguments: { command: `head -c 3600 /dev/zero | tr '\\0' ${i % 10}` } },
      ],
    });
    const steps = [...Array.from({ length: 100 }, (_, i) => big(i)), finish];
    const { id } = await startConversation(server, llm, steps, {
      tools: ['terminal'],
      agent: { condenser: summarizer(llm, summarizerKey, 1000) },
    });
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    expect((await api(server, `/api/conversations/${id}/condense`, { method: 'POST' })).status).toBe(200);

    const prompts = llm.requestsFor(summarizerKey).map((r) => textOf(messagesOf(r)[0]!));
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    for (const prompt of prompts) expect(prompt.length).toBeLessThan(MAX_PROMPT_EVENT_CHARS + 5_000);
    // Each part after the first merges the summary of the parts before it; the events are listed once.
    prompts.slice(1).forEach((prompt, i) => {
      expect(prompt).toContain(`<earlier_summary>\nPART-${i + 1}\n</earlier_summary>`);
    });
    const listed = prompts.flatMap((p) => [...p.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1])));
    expect(listed).toEqual(listed.map((_, i) => i + 1));
    const condensation = (await allEvents(server, id)).at(-1) as Ev & { forgotten_event_ids: string[] };
    expect(condensation).toMatchObject({ kind: 'Condensation', summary: `PART-${prompts.length}` });
    expect(condensation.forgotten_event_ids).toHaveLength(listed.length);
  });

  // The second: a Claude prompt of 5,000 tokens, 4,800 read from Anthropic's cache, which says
  // input_tokens 200 (the adapter counts the cached part back in).
  it.each([
    ['an OpenAI model', {}, null],
    [
      "a Claude prompt read from Anthropic's cache",
      { cache_read_tokens: 4_800 },
      'anthropic/claude-sonnet-4-5',
    ],
  ])('condenses when the last call used more tokens than max_tokens (%s)', async (_name, cached, model) => {
    const steps: ScriptStep[] = [
      ...Array.from({ length: 4 }, (_, i) => echo(i)),
      { ...echo(4), usage: { prompt_tokens: 5_000, completion_tokens: 10, ...cached } },
      echo(5),
      finish,
    ];
    const { id } = await startConversation(server, llm, scripted(steps), {
      tools: ['terminal'],
      // The scripted server's URL is known once it has started, not when the table is made.
      ...(model ? { model, llm: { base_url: llm.url } } : {}),
      agent: {
        condenser: { kind: 'LLMSummarizingCondenser', max_size: 100, keep_first: 4, max_tokens: 1_000 },
      },
    });
    await waitForStatus(server, id, ['finished']);
    const kinds = withoutStats(shape(await allEvents(server, id)));
    expect(kinds.filter((k) => k === 'Condensation')).toHaveLength(1);
    // Right after the results of the call that went over the limit (the fifth).
    const at = kinds.indexOf('Condensation');
    expect(kinds.slice(0, at).filter((k) => k === 'Observation:terminal')).toHaveLength(5);
  });

  it('answers a context-window overflow with a CondensationRequest, condenses, and carries on', async () => {
    const steps: ScriptStep[] = [
      ...Array.from({ length: 6 }, (_, i) => echo(i)),
      { error: { status: 400, message: "This model's maximum context length is 8192 tokens." } },
      echo(6),
      finish,
    ];
    const { id } = await startConversation(server, llm, scripted(steps), { tools: ['terminal'] });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const kinds = withoutStats(shape(await allEvents(server, id)));
    const at = kinds.indexOf('CondensationRequest');
    expect(kinds.slice(at, at + 4)).toEqual([
      'CondensationRequest',
      'Condensation',
      'Action:terminal',
      'Observation:terminal',
    ]);
    expect(kinds).not.toContain('ConversationErrorEvent');
  });

  it('does not condense when enable_default_condenser is false, and /condense then answers 400', async () => {
    const user = 'no-condenser-user';
    await saveSettings(user, { enable_default_condenser: false, condenser_max_size: 20 });
    const steps = [...Array.from({ length: 14 }, (_, i) => echo(i)), finish];
    const { id, key } = await startConversation(as(user), llm, scripted(steps), { tools: ['terminal'] });
    await waitForStatus(as(user), id, ['finished']);
    const events = await allEvents(as(user), id);
    expect(events.some((e) => e.kind === 'Condensation')).toBe(false);
    expect(((await info(as(user), id)).agent as { condenser: unknown }).condenser).toBeNull();
    const requests = llm.requestsFor(key);
    expect(requests.some(isSummaryRequest)).toBe(false);
    // The request that finished saw all 14 results.
    expect(messagesOf(requests.at(-1)!).filter((m) => m.role === 'tool')).toHaveLength(14);

    const res = await api(as(user), `/api/conversations/${id}/condense`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain('no condenser');
  });

  it('rejects a condenser it does not have, or sizes that leave no room, with a 422', async () => {
    for (const condenser of [
      { kind: 'PipelineCondenser', condensers: [] },
      { kind: 'LLMSummarizingCondenser', max_size: 10, keep_first: 4 },
    ]) {
      await expect(startConversation(server, llm, [], { message: '', agent: { condenser } })).rejects.toThrow(
        /answered 422/,
      );
    }
  });
});

describe('condensation across a restart', () => {
  it('rebuilds the condensed view from the stored events', async () => {
    const dataDir = tempDir('agentd-condense-restart-');
    let first: TestServer | null = await startServer({ dataDir });
    try {
      const steps = [...Array.from({ length: 14 }, (_, i) => echo(i)), finish, { text: 'Still here.' }];
      const { id, key } = await startConversation(first, llm, scripted(steps), {
        tools: ['terminal'],
        // One condensation (after 12 steps) and room to spare for the turn after the restart.
        agent: { condenser: { kind: 'LLMSummarizingCondenser', max_size: 24, keep_first: 4 } },
      });
      await waitForStatus(first, id, ['finished']);
      expect((await allEvents(first, id)).some((e) => e.kind === 'Condensation')).toBe(true);
      const before = messagesOf(llm.requestsFor(key).at(-1)!);
      await first.close();
      first = null;

      const second = await startServer({ dataDir });
      try {
        await api(second, `/api/conversations/${id}/events`, {
          method: 'POST',
          body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'And now?' }], run: true }),
        });
        await waitForStatus(second, id, ['finished']);
        const after = messagesOf(llm.requestsFor(key).at(-1)!);
        // The same view as before the restart (summary included), then the finish call, its result
        // and the new message.
        expect(after.slice(0, before.length)).toEqual(before);
        expect(after.slice(before.length).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
        expect(JSON.stringify(after)).toContain('SUMMARY-1');
      } finally {
        await second.close({ remove: true });
      }
    } finally {
      await first?.close({ remove: true });
    }
  });
});
