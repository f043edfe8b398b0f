// A conversation's history read back for its runtime: the active branch, oldest first, a page at a
// time with a turn of the loop between two (BranchReads.oldestFirst), into a ResidentHistory
// (agent/resident-history.ts): a 100k-event history neither sits in memory whole (what a Condensation
// made the LLM forget is dropped as the pages go by) nor holds the server while it is read.
import { ResidentHistory } from '../agent/index.js';
import type { AnyEvent } from '../events/index.js';
import type { EventStore } from '../store/index.js';
import { BranchReads } from './branch-reads.js';
import type { BranchPoint } from './branches.js';

/** Events per read of the store. */
const PAGE = 1000;

export interface LoadedHistory {
  history: ResidentHistory;
  /** The sequence number of the log's last event (0 for none). */
  seq: number;
}

/** Ordered with the conversation's appends by the caller (EventLog.read): the log stays as it is. */
export async function readHistory(
  events: EventStore,
  conversationId: string,
  points: readonly BranchPoint[] | undefined,
): Promise<LoadedHistory> {
  const seq = await events.lastSeq(conversationId);
  const history = new ResidentHistory();
  for await (const page of new BranchReads(events, conversationId, points).oldestFirst(PAGE))
    for (const e of page) history.add(JSON.parse(e.json) as AnyEvent);
  return { history, seq };
}
