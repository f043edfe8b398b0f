// The events a conversation page holds: a window of consecutive stored events, its newest end live
// and older pages added in front on demand, with what the timeline reads from them (each result by
// its tool call, the calls still waiting for one) kept as events come. Recomputing that over the
// whole list for every event made a long conversation's page quadratic in its length.
import type { Ev } from '../types.js';

const RESULT_KINDS = new Set(['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation']);

export const isResult = (e: Ev): boolean => RESULT_KINDS.has(e.kind);
export const callIdOf = (e: Ev): string => String(e.tool_call_id);

export class History {
  /** Oldest first, in the conversation's order. Grows in place (the page counts its changes). */
  events: Ev[] = [];
  /** Each result here by its tool call id. */
  readonly results = new Map<string, Ev>();
  /** Each action here by its tool call id. */
  readonly actions = new Map<string, Ev>();
  /** Tool call ids of the actions here without a result yet, in the order of the actions. */
  private readonly open = new Set<string>();
  /** Whether the conversation holds events older than the first one here. */
  hasEarlier = false;

  /** Newer events, after the newest here; `firstSeq` is the first one's sequence number. */
  append(batch: readonly Ev[], firstSeq: number): void {
    if (this.events.length === 0) this.hasEarlier = firstSeq > 1;
    for (const e of batch) {
      this.events.push(e);
      this.index(e);
    }
  }

  /**
   * Older events, before the first one here. Rare (a person asks for them), so what is derived is
   * built again: an action now here may pair with a result already shown, and the calls waiting for
   * a result keep the actions' order.
   */
  prepend(older: readonly Ev[], hasEarlier: boolean): void {
    this.events = [...older, ...this.events];
    this.hasEarlier = hasEarlier;
    this.results.clear();
    this.actions.clear();
    this.open.clear();
    for (const e of this.events) this.index(e);
  }

  /** The actions still waiting for a result (a confirmation, a running task), oldest first. */
  unanswered(): Ev[] {
    return Array.from(this.open, (id) => this.actions.get(id)!);
  }

  private index(e: Ev): void {
    if (e.kind === 'ActionEvent') {
      const id = callIdOf(e);
      this.actions.set(id, e);
      if (!this.results.has(id)) this.open.add(id);
    } else if (isResult(e)) {
      const id = callIdOf(e);
      this.results.set(id, e);
      this.open.delete(id);
    }
  }
}
