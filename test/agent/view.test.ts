import { describe, expect, it } from 'vitest';
import { MessageView } from '../../src/agent/index.js';
import type { AnyEvent } from '../../src/events/index.js';
import { action, ev, result, system, user } from '../support/view-events.js';

const condensation = (forgotten: AnyEvent[], summary: string | null, offset: number | null) =>
  ev('Condensation', {
    source: 'environment',
    forgotten_event_ids: forgotten.map((e) => e.id),
    summary,
    summary_offset: offset,
    llm_response_id: 'r-sum',
  });

const view = () => new MessageView(new Map());
const cid = (a: AnyEvent) => (a as { tool_call_id: string }).tool_call_id;
type M = {
  role: string;
  content?: { text?: string }[];
  tool_calls?: { id: string }[];
  tool_call_id?: string;
};
const brief = (messages: M[]) =>
  messages.map((m) =>
    m.role === 'tool'
      ? `tool:${m.tool_call_id}`
      : m.tool_calls
        ? `calls:${m.tool_calls.map((c) => c.id).join(',')}`
        : `${m.role}:${m.content?.map((c) => c.text).join('')}`,
  );

describe('MessageView with condensations', () => {
  it('drops forgotten events and puts the summary at summary_offset, as a user message', () => {
    const [s, u] = [system(), user('task')];
    const a1 = action('r1');
    const [o1, a2] = [result(a1), action('r2')];
    const o2 = result(a2);
    const events = [s, u, a1, o1, a2, o2];
    const v = view();
    expect(brief(v.update(events) as M[])).toEqual([
      'system:SYS',
      'user:task',
      `calls:${cid(a1)}`,
      `tool:${cid(a1)}`,
      `calls:${cid(a2)}`,
      `tool:${cid(a2)}`,
    ]);
    events.push(condensation([a1, o1], 'S1', 2));
    const messages = brief(v.update(events) as M[]);
    expect(messages[2]).toContain('S1');
    expect(messages).toEqual(['system:SYS', 'user:task', messages[2], `calls:${cid(a2)}`, `tool:${cid(a2)}`]);
    expect(v.events.map((e) => e.kind)).toEqual([
      'SystemPromptEvent',
      'MessageEvent',
      'CondensationSummaryEvent',
      'ActionEvent',
      'ObservationEvent',
    ]);
    expect(v.events[2]!.id).toBe(`${events[6]!.id}-summary`);

    // Later events are appended incrementally; a second condensation replaces the first summary.
    const a3 = action('r3');
    events.push(a3, result(a3), user('more'));
    v.update(events);
    expect(v.events).toHaveLength(8);
    events.push(condensation([v.events[2]!, a2, o2] as AnyEvent[], 'S2', 2));
    const after = brief(v.update(events) as M[]);
    expect(after.filter((m) => m.includes('S1'))).toEqual([]);
    expect(after[2]).toContain('S2');
    expect(after.slice(3)).toEqual([`calls:${cid(a3)}`, `tool:${cid(a3)}`, 'user:more']);
  });

  it('forgets a whole tool batch when a condensation names only part of it', () => {
    const [a, b] = [action('rb'), action('rb')];
    const events = [system(), user('x'), a, b, result(a), result(b), user('y')];
    const v = view();
    v.update(events);
    // Only the second result is named: both calls and both results go, never half a batch.
    events.push(condensation([events[5]!], null, null));
    expect(brief(v.update(events) as M[])).toEqual(['system:SYS', 'user:x', 'user:y']);
  });

  it('tracks a pending CondensationRequest until the next Condensation', () => {
    const events = [system(), user('x'), ev('CondensationRequest', { source: 'environment' })];
    const v = view();
    v.update(events);
    expect(v.condensationRequested).toBe(true);
    events.push(condensation([], null, null));
    v.update(events);
    expect(v.condensationRequested).toBe(false);
    expect(v.events).toHaveLength(2);
  });
});
