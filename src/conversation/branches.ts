// The conversation as a tree (OpenHands' POST /navigate): moving HEAD back to an earlier event makes
// the events appended next a new branch from it; the agent then sees only the path from the root to
// HEAD (its active branch), and every branch stays in the log.
//
// OpenHands stamps a `parent_id` on every event. agentd keeps the log as it was (events carry no new
// member, which OpenHands' SDKs from before the tree reject) and records the tree as its branch
// points instead: a point says "the events from sequence number `seq` on continue from
// `parent_event_id`" (null: a new root). An event's parent is the event before it in the log, except
// at a point. A conversation that was never navigated has no points: its active branch is its whole
// log, and nothing here runs for it.
//
// Sequence numbers are a conversation's own, from 1 without gaps (the event store's contract), so the
// event with number `seq` is `log[seq - 1]`.
import type { AnyEvent } from '../events/index.js';
import { UnknownEventError } from './errors.js';
import type { ConversationState } from './state.js';

export interface BranchPoint {
  /** The sequence number of the first event of the branch (it may not exist yet). */
  seq: number;
  /** The event the branch continues from; null: the branch is a new root. */
  parent_event_id: string | null;
}

/** Events that are not nodes of the tree: HEAD stays where it was when one is appended (as OpenHands). */
const NOT_NODES = new Set(['ConversationStateUpdateEvent']);

/** The events the agent sees: the path from the root to HEAD, oldest first. */
export function activeBranch(
  log: readonly AnyEvent[],
  points: readonly BranchPoint[] | undefined,
): AnyEvent[] {
  if (!points?.length) return log as AnyEvent[];
  const last = points[points.length - 1]!;
  if (last.seq <= log.length) return pathFrom(log, points, log.length - 1);
  return last.parent_event_id === null ? [] : pathTo(log, points, last.parent_event_id);
}

/**
 * The path from the root to `eventId`, oldest first; an UnknownEventError when it is not in the log.
 * Only the ids are read (a fork walks the log's ids alone).
 */
export function pathTo<E extends { id: string }>(
  log: readonly E[],
  points: readonly BranchPoint[] | undefined,
  eventId: string,
  field = 'event_id',
): E[] {
  const index = log.findIndex((e) => e.id === eventId);
  if (index < 0) throw new UnknownEventError(field, eventId);
  return points?.length ? pathFrom(log, points, index) : log.slice(0, index + 1);
}

/**
 * The branch points after HEAD moves to `eventId` (null: an empty tree) in a log of `length` events:
 * the next event starts a branch there. A point no event has reached yet is replaced, so moving HEAD
 * again and again without a run adds nothing.
 */
export function navigatedPoints(
  points: readonly BranchPoint[] | undefined,
  length: number,
  eventId: string | null,
): BranchPoint[] {
  const kept = (points ?? []).filter((p) => p.seq <= length);
  return [...kept, { seq: length + 1, parent_event_id: eventId }];
}

/**
 * The state of a navigated conversation after `events` are appended to it: HEAD on the newest of them
 * that is a node of the tree. Null when nothing changes (never navigated, or no node among them).
 */
export function headAfter(state: ConversationState, events: readonly AnyEvent[]): ConversationState | null {
  if (!state.branch_points?.length) return null;
  for (let i = events.length - 1; i >= 0; i--)
    if (!NOT_NODES.has(events[i]!.kind)) return { ...state, leaf_event_id: events[i]!.id };
  return null;
}

/** The path from the root to `log[index]`: each branch back to its point, then on from its parent. */
function pathFrom<E extends { id: string }>(
  log: readonly E[],
  points: readonly BranchPoint[],
  index: number,
): E[] {
  const indexOf = new Map(log.map((e, i) => [e.id, i]));
  const pieces: E[][] = [];
  const visited = new Set<number>();
  for (let end: number | undefined = index; end !== undefined; ) {
    // A parent is always older than its branch, so a walk ends; the set guards a hand-edited record.
    if (visited.has(end)) break;
    visited.add(end);
    const point = pointOf(points, end + 1);
    const start = point ? point.seq - 1 : 0;
    pieces.push(log.slice(start, end + 1));
    end = point?.parent_event_id ? indexOf.get(point.parent_event_id) : undefined;
  }
  return pieces.reverse().flat();
}

/** The point of the branch that holds the event numbered `seq`; undefined: the first branch. */
export function pointOf(points: readonly BranchPoint[], seq: number): BranchPoint | undefined {
  let found: BranchPoint | undefined;
  for (const p of points) if (p.seq <= seq) found = p;
  return found;
}
