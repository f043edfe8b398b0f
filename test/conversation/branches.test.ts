// The tree a log with branch points makes: which events the agent sees after HEAD moved, here and
// back, including to an event of a branch it left.
import { describe, expect, it } from 'vitest';
import {
  activeBranch,
  type BranchPoint,
  headAfter,
  navigatedPoints,
  pathTo,
} from '../../src/conversation/branches.js';
import { UnknownEventError } from '../../src/conversation/errors.js';
import type { ConversationState } from '../../src/conversation/state.js';
import type { AnyEvent } from '../../src/events/index.js';

const event = (id: string, kind = 'MessageEvent') => ({ id, kind }) as unknown as AnyEvent;
const ids = (events: readonly AnyEvent[]) => events.map((e) => e.id).join('');

/** Appends events named by the letters of `names` to `log`. */
const append = (log: AnyEvent[], names: string) => log.push(...[...names].map((n) => event(n)));

describe('branches', () => {
  it('is the whole log until HEAD moves', () => {
    const log: AnyEvent[] = [];
    append(log, 'abc');
    expect(activeBranch(log, undefined)).toBe(log);
    expect(activeBranch(log, [])).toBe(log);
    expect(ids(pathTo(log, undefined, 'b'))).toBe('ab');
  });

  it('follows HEAD across branches, to a left branch and back', () => {
    const log: AnyEvent[] = [];
    append(log, 'abc');
    let points: BranchPoint[] = navigatedPoints(undefined, log.length, 'a');
    expect(ids(activeBranch(log, points))).toBe('a'); // HEAD moved, nothing appended yet
    append(log, 'de');
    expect(ids(activeBranch(log, points))).toBe('ade');

    points = navigatedPoints(points, log.length, 'c'); // back to the branch it left
    append(log, 'f');
    expect(ids(activeBranch(log, points))).toBe('abcf');

    points = navigatedPoints(points, log.length, 'e');
    append(log, 'g');
    expect(ids(activeBranch(log, points))).toBe('adeg');
    expect(ids(pathTo(log, points, 'f'))).toBe('abcf');
    expect(ids(pathTo(log, points, 'd'))).toBe('ad');

    points = navigatedPoints(points, log.length, null); // an empty tree
    expect(activeBranch(log, points)).toEqual([]);
    append(log, 'h');
    expect(ids(activeBranch(log, points))).toBe('h');
    expect(() => pathTo(log, points, 'z', 'from_event_id')).toThrow(UnknownEventError);
  });

  it('replaces a point no event has reached: moving HEAD twice without a run adds one point', () => {
    const first = navigatedPoints(undefined, 3, 'a');
    const second = navigatedPoints(first, 3, 'b');
    expect(second).toEqual([{ seq: 4, parent_event_id: 'b' }]);
  });

  it('moves HEAD to the newest appended node, not to a state update, and only once navigated', () => {
    const state = {
      branch_points: [{ seq: 2, parent_event_id: 'a' }],
      leaf_event_id: 'a',
    } as ConversationState;
    const appended = [event('m'), event('u', 'ConversationStateUpdateEvent')];
    expect(headAfter(state, appended)?.leaf_event_id).toBe('m');
    expect(headAfter(state, [event('u', 'ConversationStateUpdateEvent')])).toBeNull();
    expect(headAfter({ ...state, branch_points: undefined }, appended)).toBeNull();
  });
});
