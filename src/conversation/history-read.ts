// A conversation's history read back for its runtime: the active branch, into a ResidentHistory
// (agent/resident-history.ts), so what a Condensation made the LLM forget does not stay resident.
// A log without branch points is read a page at a time, with a turn of the loop between two pages:
// a 100k-event history neither sits in memory whole nor holds the server while it is read.
import { ResidentHistory } from '../agent/index.js';
import type { AnyEvent } from '../events/index.js';
import { loopTurns } from '../loop/index.js';
import type { EventStore } from '../store/index.js';
import { activeBranch, type BranchPoint } from './branches.js';

/** Events per read of the store. */
const PAGE = 1000;

export interface LoadedHistory {
  history: ResidentHistory;
  /** The sequence number of the log's last event (0 for none). */
  seq: number;
}

export async function readHistory(
  events: Pick<EventStore, 'after'>,
  conversationId: string,
  points: readonly BranchPoint[] | undefined,
): Promise<LoadedHistory> {
  const history = new ResidentHistory();
  // A navigated conversation's branch is a walk over the whole log's ids (branches.ts).
  const log: AnyEvent[] | null = points?.length ? [] : null;
  let seq = 0;
  for (;;) {
    const page = await events.after(conversationId, seq, PAGE);
    for (const e of page) {
      const event = JSON.parse(e.json) as AnyEvent;
      if (log) log.push(event);
      else history.add(event);
    }
    if (page.length > 0) seq = page[page.length - 1]!.seq;
    if (page.length < PAGE) break;
    await loopTurns.turn('background');
  }
  if (log) for (const event of activeBranch(log, points)) history.add(event);
  return { history, seq };
}
