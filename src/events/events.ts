// The 14 event kinds of the spec (plus InterruptEvent and HookExecutionEvent, which OpenHands persists,
// and ServerErrorEvent and StreamingDeltaEvent, which it only sends over WebSocket). Every event rejects unknown members; `source` defaults per kind.
import { type Static, type TProperties, Type } from 'typebox';
import { NullableAction } from './actions.js';
import {
  AnyThinkingBlock,
  CriticResult,
  Message,
  MessageToolCall,
  ReasoningItemModel,
  SecurityRisk,
  TextContent,
} from './content.js';
import { Observation } from './observations.js';
import { Closed, KindUnion, Nullable } from './schema-helpers.js';
import { ToolDefinition } from './tool-definitions.js';

export const EventSource = Type.Union([
  Type.Literal('agent'),
  Type.Literal('user'),
  Type.Literal('environment'),
]);

/** An event kind. `source` is required when the kind has no default (defaultSource null). */
function event<K extends string, P extends TProperties>(
  kind: K,
  defaultSource: 'agent' | 'user' | 'environment' | null,
  properties: P,
) {
  const source =
    defaultSource === null
      ? EventSource
      : Type.Optional(Type.Union(EventSource.anyOf, { default: defaultSource }));
  return Closed(
    {
      id: Type.String({ minLength: 1 }),
      timestamp: Type.String({ format: 'iso-date-time' }),
      source,
      ...properties,
      kind: Type.Literal(kind),
    },
    { title: kind },
  );
}

export const Condensation = event('Condensation', 'environment', {
  forgotten_event_ids: Type.Optional(Type.Array(Type.String(), { default: [] })),
  summary: Type.Optional(Nullable(Type.String())),
  summary_offset: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  llm_response_id: Type.String(),
});
export const CondensationRequest = event('CondensationRequest', 'environment', {});
export const CondensationSummaryEvent = event('CondensationSummaryEvent', 'environment', {
  summary: Type.String(),
});
export const ConversationErrorEvent = event('ConversationErrorEvent', null, {
  code: Type.String(),
  detail: Type.String(),
});
export const ConversationStateUpdateEvent = event('ConversationStateUpdateEvent', 'environment', {
  key: Type.Optional(Type.String()),
  value: Type.Optional(Type.Unknown()),
});
export const LLMCompletionLogEvent = event('LLMCompletionLogEvent', 'environment', {
  filename: Type.String(),
  log_data: Type.String(),
  model_name: Type.Optional(Type.String({ default: 'unknown' })),
  usage_id: Type.Optional(Type.String({ default: 'default' })),
});
export const ActionEvent = event('ActionEvent', 'agent', {
  thought: Type.Array(TextContent),
  reasoning_content: Type.Optional(Nullable(Type.String())),
  thinking_blocks: Type.Optional(Type.Array(AnyThinkingBlock, { default: [] })),
  responses_reasoning_item: Type.Optional(Nullable(ReasoningItemModel)),
  action: Type.Optional(NullableAction),
  tool_name: Type.String(),
  tool_call_id: Type.String(),
  tool_call: MessageToolCall,
  llm_response_id: Type.String(),
  security_risk: Type.Optional(Type.Union(SecurityRisk.anyOf, { default: 'UNKNOWN' })),
  critic_result: Type.Optional(Nullable(CriticResult)),
  summary: Type.Optional(Nullable(Type.String())),
});
export const MessageEvent = event('MessageEvent', null, {
  llm_message: Message,
  llm_response_id: Type.Optional(Nullable(Type.String())),
  activated_skills: Type.Optional(Type.Array(Type.String(), { default: [] })),
  extended_content: Type.Optional(Type.Array(TextContent, { default: [] })),
  sender: Type.Optional(Nullable(Type.String())),
  critic_result: Type.Optional(Nullable(CriticResult)),
});
export const AgentErrorEvent = event('AgentErrorEvent', 'agent', {
  tool_name: Type.String(),
  tool_call_id: Type.String(),
  error: Type.String(),
});
export const ObservationEvent = event('ObservationEvent', 'environment', {
  tool_name: Type.String(),
  tool_call_id: Type.String(),
  observation: Observation,
  action_id: Type.String(),
});
export const UserRejectObservation = event('UserRejectObservation', 'environment', {
  tool_name: Type.String(),
  tool_call_id: Type.String(),
  rejection_reason: Type.Optional(Type.String({ default: 'User rejected the action' })),
  rejection_source: Type.Optional(
    Type.Union([Type.Literal('user'), Type.Literal('hook')], { default: 'user' }),
  ),
  action_id: Type.String(),
});
export const SystemPromptEvent = event('SystemPromptEvent', 'agent', {
  system_prompt: TextContent,
  tools: Type.Array(ToolDefinition),
  dynamic_context: Type.Optional(Nullable(TextContent)),
});
export const TokenEvent = event('TokenEvent', null, {
  prompt_token_ids: Type.Array(Type.Integer()),
  response_token_ids: Type.Array(Type.Integer()),
});
export const PauseEvent = event('PauseEvent', 'user', {});

/** Not in the spec's union: OpenHands persists it after an interrupt. */
export const InterruptEvent = event('InterruptEvent', 'user', {});
/**
 * Not in the spec's union: OpenHands persists one per hook that ran (source `hook`), so clients can
 * see what a hook decided and why.
 */
export const HookExecutionEvent = Closed(
  {
    id: Type.String({ minLength: 1 }),
    timestamp: Type.String({ format: 'iso-date-time' }),
    source: Type.Optional(Type.Union([...EventSource.anyOf, Type.Literal('hook')], { default: 'hook' })),
    hook_event_type: Type.Union(
      ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart', 'SessionEnd', 'Stop'].map((t) =>
        Type.Literal(t),
      ),
    ),
    hook_command: Type.String(),
    tool_name: Type.Optional(Nullable(Type.String())),
    success: Type.Boolean(),
    blocked: Type.Optional(Type.Boolean({ default: false })),
    exit_code: Type.Integer(),
    stdout: Type.Optional(Type.String({ default: '' })),
    stderr: Type.Optional(Type.String({ default: '' })),
    reason: Type.Optional(Nullable(Type.String())),
    additional_context: Type.Optional(Nullable(Type.String())),
    error: Type.Optional(Nullable(Type.String())),
    action_id: Type.Optional(Nullable(Type.String())),
    message_id: Type.Optional(Nullable(Type.String())),
    hook_input: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    kind: Type.Literal('HookExecutionEvent'),
  },
  { title: 'HookExecutionEvent' },
);
/** Not in the spec's union: sent over WebSocket only, when a client frame fails. */
export const ServerErrorEvent = event('ServerErrorEvent', 'environment', {
  code: Type.String(),
  detail: Type.String(),
});

/**
 * Not in the spec's union, never persisted: a piece of the LLM's answer while it streams (`llm.stream:
 * true`), published to WebSocket readers only. OpenHands' shape exactly: answer text in `content`,
 * reasoning text in `reasoning_content`, the other null; its SDK rejects any other member.
 */
export const StreamingDeltaEvent = event('StreamingDeltaEvent', 'agent', {
  content: Type.Optional(Nullable(Type.String())),
  reasoning_content: Type.Optional(Nullable(Type.String())),
});

export const EVENT_VARIANTS = [
  Condensation,
  CondensationRequest,
  CondensationSummaryEvent,
  ConversationErrorEvent,
  ConversationStateUpdateEvent,
  LLMCompletionLogEvent,
  ActionEvent,
  MessageEvent,
  AgentErrorEvent,
  ObservationEvent,
  UserRejectObservation,
  SystemPromptEvent,
  TokenEvent,
  PauseEvent,
] as const;

/** The spec's Event union: 14 kinds, chosen by `kind`. */
export const EventUnionSchema = KindUnion('Event', [...EVENT_VARIANTS], { $id: 'Event' });
/** What agentd persists: the spec's 14 kinds, InterruptEvent and HookExecutionEvent. */
export const AnyEventSchema = KindUnion('AnyEvent', [...EVENT_VARIANTS, InterruptEvent, HookExecutionEvent]);
/**
 * Every kind agentd stores or sends (the OpenAPI document's `ServerEvent`): what it persists, plus
 * the WebSocket-only ServerErrorEvent and StreamingDeltaEvent.
 */
export const ServerEventSchema = KindUnion(
  'ServerEvent',
  [...EVENT_VARIANTS, InterruptEvent, HookExecutionEvent, ServerErrorEvent, StreamingDeltaEvent],
  {
    $id: 'ServerEvent',
    description:
      "Every event kind agentd stores or sends: the `Event` union (the spec's 14 kinds) and InterruptEvent, " +
      'HookExecutionEvent (both persisted, in REST answers and WebSocket frames), ServerErrorEvent (WebSocket ' +
      "only, when a client frame fails) and StreamingDeltaEvent (WebSocket only, never stored: the LLM's " +
      'answer while it streams, with `llm.stream: true`).',
  },
);

export type Event = Static<typeof EventUnionSchema>;
export type AnyEvent = Static<typeof AnyEventSchema>;
export type ActionEvent = Static<typeof ActionEvent>;
export type ObservationEvent = Static<typeof ObservationEvent>;
export type MessageEvent = Static<typeof MessageEvent>;
export type AgentErrorEvent = Static<typeof AgentErrorEvent>;
export type SystemPromptEvent = Static<typeof SystemPromptEvent>;
export type UserRejectObservation = Static<typeof UserRejectObservation>;
export type ConversationErrorEvent = Static<typeof ConversationErrorEvent>;
export type ConversationStateUpdateEvent = Static<typeof ConversationStateUpdateEvent>;
export type HookExecutionEvent = Static<typeof HookExecutionEvent>;
export type TokenEvent = Static<typeof TokenEvent>;
export type StreamingDeltaEvent = Static<typeof StreamingDeltaEvent>;
export type LLMCompletionLogEvent = Static<typeof LLMCompletionLogEvent>;
