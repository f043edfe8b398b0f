// The LLM's view of a conversation: the events the LLM sees, after the Condensations so far, and the
// Messages built from them. Built incrementally: each update only handles events it has not seen, so
// a step costs O(new events). A Condensation rebuilds the Messages once, from the (condensed, so
// bounded) view, never from the whole history. The event log itself is never changed.
import type { AnyEvent } from '../events/index.js';
import type { LlmMessage } from '../llm/index.js';
import type { Tool } from '../tools/index.js';
import { ANSWER_KINDS, LLM_KINDS, MessageBuilder } from './llm-messages.js';
import { closeOverBatches } from './tool-batches.js';

/** An event of the view: a stored event, or the CondensationSummaryEvent a Condensation put there. */
export type ViewEvent = AnyEvent & Record<string, unknown>;

interface CondensationFields {
  id: string;
  timestamp: string;
  forgotten_event_ids?: string[];
  summary?: string | null;
  summary_offset?: number | null;
}

/**
 * The events a view holds after the Condensations so far, without their Messages: what MessageView
 * builds its Messages from, and what ResidentHistory (resident-history.ts) keeps of a long history.
 */
export class ViewEntries {
  private list: ViewEvent[] = [];
  /** tool_call_ids of the calls in the view: a result whose call is not there is left out. */
  private calls = new Set<unknown>();
  private requested = false;

  /** The events the LLM sees, in order (what a condenser counts and cuts). */
  get events(): readonly ViewEvent[] {
    return this.list;
  }

  /** A CondensationRequest came after the last Condensation. */
  get condensationRequested(): boolean {
    return this.requested;
  }

  /**
   * Takes the next event of the history: 'added' when it joined the view's events at the end,
   * 'condensed' when it was a Condensation (the events were replaced), else null.
   */
  add(event: ViewEvent): 'added' | 'condensed' | null {
    if (event.kind === 'CondensationRequest') {
      this.requested = true;
      return null;
    }
    if (event.kind === 'Condensation') {
      this.requested = false;
      this.apply(event as unknown as CondensationFields);
      return 'condensed';
    }
    if (!LLM_KINDS.has(event.kind)) return null;
    if (ANSWER_KINDS.has(event.kind) && !this.calls.has(event.tool_call_id)) return null;
    if (event.kind === 'ActionEvent') this.calls.add(event.tool_call_id);
    this.list.push(event);
    return 'added';
  }

  /**
   * Forgets the condensation's events (grown to whole tool batches), and replaces any earlier summary
   * with its own at `summary_offset` (counted in the view after the removal).
   */
  private apply(c: CondensationFields): void {
    const forgotten = closeOverBatches(this.list, new Set(c.forgotten_event_ids ?? []));
    let kept = this.list.filter((e) => !forgotten.has(e.id));
    if (typeof c.summary === 'string' && typeof c.summary_offset === 'number') {
      kept = kept.filter((e) => e.kind !== 'CondensationSummaryEvent');
      const summary = {
        id: `${c.id}-summary`,
        timestamp: c.timestamp,
        source: 'environment',
        summary: c.summary,
        kind: 'CondensationSummaryEvent',
      } as ViewEvent;
      kept.splice(Math.min(c.summary_offset, kept.length), 0, summary);
    }
    this.list = kept;
    this.calls = new Set(kept.filter((e) => e.kind === 'ActionEvent').map((e) => e.tool_call_id));
  }
}

export class MessageView {
  private view = new ViewEntries();
  private builder: MessageBuilder;
  private seen = 0;
  private history: readonly AnyEvent[] | null = null;
  /**
   * The Messages are behind the view's events (a Condensation, or another history): built again once,
   * from the view, at the end of the update, however many Condensations it met.
   */
  private stale = false;

  constructor(private readonly tools: ReadonlyMap<string, Tool>) {
    this.builder = new MessageBuilder(tools);
  }

  /** The Messages of `events`, a history that only grows; another history is built from scratch. */
  update(events: readonly AnyEvent[]): LlmMessage[] {
    if (events !== this.history) {
      if (this.history) this.reset();
      this.history = events;
    }
    for (; this.seen < events.length; this.seen++) this.take(events[this.seen] as ViewEvent);
    if (this.stale) {
      this.builder = new MessageBuilder(this.tools);
      for (const e of this.view.events) this.builder.add(e);
      this.stale = false;
    }
    return this.builder.messages;
  }

  /** The history the view was built from: the host hands another one when HEAD moved (a navigation). */
  get source(): readonly AnyEvent[] | null {
    return this.history;
  }

  private reset(): void {
    this.view = new ViewEntries();
    this.stale = true;
    this.seen = 0;
  }

  /** The events the LLM sees, in order (what a condenser counts and cuts). */
  get events(): readonly ViewEvent[] {
    return this.view.events;
  }

  get messages(): LlmMessage[] {
    return this.builder.messages;
  }

  /** A CondensationRequest came after the last Condensation. */
  get condensationRequested(): boolean {
    return this.view.condensationRequested;
  }

  private take(event: ViewEvent): void {
    const change = this.view.add(event);
    if (change === 'condensed') this.stale = true;
    else if (change === 'added' && !this.stale) this.builder.add(event);
  }
}
