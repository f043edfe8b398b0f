// OpenHands filters events by the fully-qualified class path of the kind; agentd accepts that path
// and the short kind name alike.
const PATHS: Record<string, string> = {
  ActionEvent: 'openhands.sdk.event.llm_convertible.action.ActionEvent',
  MessageEvent: 'openhands.sdk.event.llm_convertible.message.MessageEvent',
  ObservationEvent: 'openhands.sdk.event.llm_convertible.observation.ObservationEvent',
  AgentErrorEvent: 'openhands.sdk.event.llm_convertible.observation.AgentErrorEvent',
  UserRejectObservation: 'openhands.sdk.event.llm_convertible.observation.UserRejectObservation',
  SystemPromptEvent: 'openhands.sdk.event.llm_convertible.system.SystemPromptEvent',
  ConversationStateUpdateEvent: 'openhands.sdk.event.conversation_state.ConversationStateUpdateEvent',
  ConversationErrorEvent: 'openhands.sdk.event.conversation_error.ConversationErrorEvent',
  Condensation: 'openhands.sdk.event.condenser.Condensation',
  CondensationRequest: 'openhands.sdk.event.condenser.CondensationRequest',
  CondensationSummaryEvent: 'openhands.sdk.event.condenser.CondensationSummaryEvent',
  PauseEvent: 'openhands.sdk.event.user_action.PauseEvent',
  InterruptEvent: 'openhands.sdk.event.user_action.InterruptEvent',
  TokenEvent: 'openhands.sdk.event.token.TokenEvent',
  LLMCompletionLogEvent: 'openhands.sdk.event.llm_completion_log.LLMCompletionLogEvent',
  HookExecutionEvent: 'openhands.sdk.event.hook_execution.HookExecutionEvent',
};

export const EVENT_KIND_PATHS: Readonly<Record<string, string>> = PATHS;

const BY_PATH = new Map(Object.entries(PATHS).map(([kind, path]) => [path, kind]));

/** The short kind for a short name or an OpenHands class path; null when it names no kind. */
export function resolveEventKind(value: string): string | null {
  if (value in PATHS) return value;
  return BY_PATH.get(value) ?? null;
}
