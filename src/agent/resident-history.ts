// What of a conversation's history the agent keeps in memory. After a Condensation the LLM no longer
// sees what it forgot, so a long conversation, condensed again and again, does not need all of its
// events resident: only the view's events as the last Condensation left them, that Condensation,
// and every event since. A history of 100k events then costs what its view and its last stretch
// cost, not 100k parsed events, whether it was read back from the store or grew in a long run.
import type { AnyEvent } from '../events/index.js';
import { pendingActions } from './agent-events.js';
import { ViewEntries, type ViewEvent } from './view.js';

/**
 * Takes a history's events in order and keeps `events`: a MessageView built from them has the same
 * events and Messages as one built from the whole history (the Condensation kept there puts its
 * summary back where it stands and forgets nothing that is still kept), and every event since the
 * last Condensation is there, of every kind, and the actions still waiting to run: the pending scan
 * finds what it finds in the whole history, and the stuck detector, which looks no further back than
 * the last Condensation, what it finds there. The summary a Condensation put in the view is kept as the view
 * holds it, so `events` may hold a CondensationSummaryEvent that is not a stored event.
 *
 * `events` is the same array while events are added, and a new one after each Condensation: an agent
 * whose view was built from the old one builds it again, from a history as long as the view.
 */
export class ResidentHistory {
  private readonly view = new ViewEntries();
  private list: AnyEvent[] = [];
  private condensed = false;

  add(event: AnyEvent): void {
    this.list.push(event);
    if (this.view.add(event as ViewEvent) !== 'condensed') return;
    const trimmed = [...this.view.events, event];
    // Actions still waiting to run stay pending though a forced condensation (POST /condense while
    // they await confirmation) made the LLM forget them, as in OpenHands, which finds them in its
    // whole log: then nothing is left out this time.
    if (!sameIds(pendingActions(trimmed), pendingActions(this.list))) return;
    this.list = trimmed;
    this.condensed = true;
  }

  /** The resident history, oldest first. */
  get events(): AnyEvent[] {
    return this.list;
  }

  /** Whether events of the history are left out (a Condensation left out what the LLM forgot). */
  get partial(): boolean {
    return this.condensed;
  }
}

const sameIds = (a: readonly AnyEvent[], b: readonly AnyEvent[]) =>
  a.length === b.length && a.every((e, i) => e.id === b[i]!.id);
