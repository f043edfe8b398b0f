import { describe, expect, it } from 'vitest';
import { condenserProblem, planForgetting } from '../../src/agent/index.js';

// A view as the planner sees it: kinds, ids, and the members that tie calls to results.
type Entry = { id: string; kind: string; llm_response_id?: string; tool_call_id?: string };
let n = 0;
const sys = (): Entry => ({ id: `e${++n}`, kind: 'SystemPromptEvent' });
const msg = (): Entry => ({ id: `e${++n}`, kind: 'MessageEvent' });
const summary = (): Entry => ({ id: `e${++n}`, kind: 'CondensationSummaryEvent' });
/** One LLM response with `calls` tool calls, followed by their results (or not, when pending). */
function batch(calls: number, answered = true): Entry[] {
  const response = `r${++n}`;
  const actions = Array.from({ length: calls }, () => ({
    id: `e${++n}`,
    kind: 'ActionEvent',
    llm_response_id: response,
    tool_call_id: `c${n}`,
  }));
  const results = answered
    ? actions.map((a) => ({ id: `e${++n}`, kind: 'ObservationEvent', tool_call_id: a.tool_call_id }))
    : [];
  return [...actions, ...results];
}

/** Every batch is wholly inside or wholly outside [start, end). */
function splitsNothing(entries: Entry[], range: { start: number; end: number }): boolean {
  const inside = (i: number) => i >= range.start && i < range.end;
  const side = new Map<string, boolean>();
  const callToResponse = new Map<string, string>();
  return entries.every((e, i) => {
    const key =
      e.kind === 'ActionEvent'
        ? e.llm_response_id
        : e.tool_call_id
          ? callToResponse.get(e.tool_call_id)
          : undefined;
    if (e.kind === 'ActionEvent') callToResponse.set(e.tool_call_id!, e.llm_response_id!);
    if (key === undefined) return true;
    if (!side.has(key)) side.set(key, inside(i));
    return side.get(key) === inside(i);
  });
}

describe('planForgetting', () => {
  it('keeps keep_first events and about half of max_size, cutting only between tool batches', () => {
    // 2 + 11 single-call batches = 24 events, max_size 20: the naive end (24 - 5 = 19) falls between a
    // call and its result, so the end moves back one.
    const entries = [sys(), msg(), ...Array.from({ length: 11 }, () => batch(1)).flat()];
    const range = planForgetting(entries, { maxSize: 20, keepFirst: 4 }, 'size')!;
    expect(range).toEqual({ start: 4, end: 18 });
    expect(splitsNothing(entries, range)).toBe(true);
  });

  it('never splits a batch of parallel calls, and moves the start past one that straddles keep_first', () => {
    // [sys, msg, A A A R R R, ...]: keep_first 4 falls inside the first batch; the start moves to 8.
    const entries = [sys(), msg(), ...batch(3), ...batch(3), ...batch(3), ...batch(3), msg()];
    const range = planForgetting(entries, { maxSize: 20, keepFirst: 4 }, 'request')!;
    expect(range.start).toBe(8);
    expect(splitsNothing(entries, range)).toBe(true);
    expect(range.end).toBeGreaterThan(range.start);
  });

  it('keeps a batch still waiting for its results', () => {
    const entries = [sys(), msg(), ...batch(1), ...batch(1), ...batch(1), ...batch(2, false)];
    const range = planForgetting(entries, { maxSize: 20, keepFirst: 2 }, 'request')!;
    expect(range.end).toBeLessThanOrEqual(entries.length - 2);
    expect(splitsNothing(entries, range)).toBe(true);
  });

  it('never forgets the system prompt, and finds nothing to forget in a tiny view or an old summary alone', () => {
    const entries = [sys(), msg(), ...batch(1), msg()];
    expect(planForgetting(entries, { maxSize: 20, keepFirst: 0 }, 'request')!.start).toBe(1);
    expect(planForgetting([sys(), msg()], { maxSize: 20, keepFirst: 4 }, 'request')).toBeNull();
    expect(
      planForgetting([sys(), msg(), summary(), msg()], { maxSize: 8, keepFirst: 2 }, 'request'),
    ).toBeNull();
  });

  it('rejects sizes that leave no room for recent events, as OpenHands does', () => {
    expect(condenserProblem(120, 4)).toBeNull();
    expect(condenserProblem(10, 4)).toContain('keep_first');
    expect(condenserProblem(0, 0)).toContain('max_size');
  });
});
