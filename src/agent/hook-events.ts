// Hook runs as events: one HookExecutionEvent per hook that ran (what OpenHands persists), and the
// UserRejectObservation that stands in for an action a hook (or the user) refused.
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { HookRun } from '../hooks/index.js';

/** Hook output kept on an event; hooks can print anything, events should stay small. */
const MAX_LOG = 50_000;
const clip = (text: string | null): string | null =>
  text === null || text.length <= MAX_LOG ? text : `${text.slice(0, MAX_LOG - 12)}\n<TRUNCATED>`;

export function hookExecutionEvents(
  runs: readonly HookRun[],
  link: { actionId?: string; messageId?: string } = {},
): AnyEvent[] {
  return runs.map(
    (run) =>
      ({
        id: newEventId(),
        timestamp: nowTimestamp(),
        source: 'hook',
        hook_event_type: run.input.event_type,
        hook_command: run.command,
        ...(run.input.tool_name ? { tool_name: run.input.tool_name } : {}),
        success: run.result.success,
        blocked: run.result.blocked,
        exit_code: run.result.exit_code,
        stdout: clip(run.result.stdout) ?? '',
        stderr: clip(run.result.stderr) ?? '',
        ...(run.result.reason !== null ? { reason: clip(run.result.reason) } : {}),
        ...(run.result.additional_context !== null
          ? { additional_context: clip(run.result.additional_context) }
          : {}),
        ...(run.result.error !== null ? { error: run.result.error } : {}),
        ...(link.actionId ? { action_id: link.actionId } : {}),
        ...(link.messageId ? { message_id: link.messageId } : {}),
        hook_input: hookInputSummary(run),
        kind: 'HookExecutionEvent',
      }) as AnyEvent,
  );
}

function hookInputSummary(run: HookRun): Record<string, unknown> {
  const i = run.input;
  if (i.tool_name !== null)
    return {
      tool_name: i.tool_name,
      tool_input: i.tool_input,
      ...(i.tool_response ? { tool_response: i.tool_response } : {}),
    };
  if (i.message !== null) return { message: i.message };
  return i.metadata;
}

export function rejection(
  action: { id: string; tool_name: string; tool_call_id: string },
  reason: string,
  source: 'user' | 'hook',
): AnyEvent {
  return {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'environment',
    tool_name: action.tool_name,
    tool_call_id: action.tool_call_id,
    rejection_reason: reason,
    rejection_source: source,
    action_id: action.id,
    kind: 'UserRejectObservation',
  } as AnyEvent;
}
