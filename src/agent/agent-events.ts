// Building blocks of the events the agent makes, and the two derived from the log: the error that
// answers an action which could not run, and the actions still waiting for an answer.
import type { Static } from 'typebox';
import { type AnyEvent, newEventId, nowTimestamp, type TextContent } from '../events/index.js';

export type ActionEventT = Extract<AnyEvent, { kind: 'ActionEvent' }>;

export const textContent = (text: string): Static<typeof TextContent> => ({
  type: 'text',
  text,
  cache_prompt: false,
});

/** The members every event starts with: a fresh id, now, and who it comes from. */
export function base(source: 'agent' | 'user' | 'environment') {
  return { id: newEventId(), timestamp: nowTimestamp(), source };
}

export function agentError(action: { tool_name: string; tool_call_id: string }, error: string): AnyEvent {
  return {
    ...base('agent'),
    tool_name: action.tool_name,
    tool_call_id: action.tool_call_id,
    error,
    kind: 'AgentErrorEvent',
  } as AnyEvent;
}

/**
 * ActionEvents with an executable action that nothing has answered yet, in order. Only the latest
 * batch of actions (one LLM response) can be unanswered: the agent calls the LLM again only once every
 * action has an answer. So the scan goes backwards and stops at that batch: O(events since the last
 * response), not O(history), on every step.
 */
export function pendingActions(events: readonly AnyEvent[]): ActionEventT[] {
  const scan = new PendingScan();
  for (let i = events.length - 1; i >= 0 && scan.take(events[i]!); i--);
  return scan.pending;
}

/**
 * pendingActions' backward scan, fed one event at a time, newest first: a reader of the store (after a
 * crash) reads back only as far as the scan looks.
 */
export class PendingScan {
  /** The pending actions among the events taken so far, in order. */
  readonly pending: ActionEventT[] = [];
  private readonly answered = new Set<string>();
  private batch: string | undefined;

  /** Takes the next older event; false once nothing older can be pending (this event changed nothing). */
  take(event: AnyEvent): boolean {
    const e = event as AnyEvent & { tool_call_id?: string; source?: string };
    if (e.kind === 'ObservationEvent' || e.kind === 'AgentErrorEvent' || e.kind === 'UserRejectObservation') {
      this.answered.add(e.tool_call_id!);
    } else if (e.kind === 'ActionEvent') {
      const action = e as ActionEventT;
      this.batch ??= action.llm_response_id;
      if (action.llm_response_id !== this.batch) return false;
      if (action.action != null && !this.answered.has(action.tool_call_id)) this.pending.unshift(action);
    } else if (
      this.batch !== undefined ||
      e.kind === 'SystemPromptEvent' ||
      (e.kind === 'MessageEvent' && e.source === 'agent')
    ) {
      // Past the latest batch, or an agent reply / the start: nothing older can be pending.
      return false;
    }
    return true;
  }
}
