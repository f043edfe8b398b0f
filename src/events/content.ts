// Nested wire types shared by events, actions and observations (spec: "Nested types").
import { Type } from 'typebox';
import { Closed, Nullable, TagUnion } from './schema-helpers.js';

export const TextContent = Closed(
  {
    cache_prompt: Type.Optional(Type.Boolean({ default: false })),
    type: Type.Optional(Type.Literal('text', { default: 'text' })),
    text: Type.String(),
  },
  { title: 'TextContent' },
);

export const ImageContent = Closed(
  {
    cache_prompt: Type.Optional(Type.Boolean({ default: false })),
    type: Type.Literal('image'),
    image_urls: Type.Array(Type.String()),
  },
  { title: 'ImageContent' },
);

/** TextContent or ImageContent (by `type`; a missing type means text). */
export const Content = TagUnion('image', ImageContent, TextContent);

export const ThinkingBlock = Closed(
  {
    type: Type.Optional(Type.Literal('thinking', { default: 'thinking' })),
    thinking: Type.String(),
    signature: Type.Optional(Nullable(Type.String())),
  },
  { title: 'ThinkingBlock' },
);

export const RedactedThinkingBlock = Closed(
  {
    type: Type.Optional(Type.Literal('redacted_thinking', { default: 'redacted_thinking' })),
    data: Type.String(),
  },
  { title: 'RedactedThinkingBlock' },
);

export const AnyThinkingBlock = TagUnion('redacted_thinking', RedactedThinkingBlock, ThinkingBlock);

export const ReasoningItemModel = Closed(
  {
    id: Type.Optional(Nullable(Type.String())),
    summary: Type.Optional(Type.Array(Type.String())),
    content: Type.Optional(Nullable(Type.Array(Type.String()))),
    encrypted_content: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Nullable(Type.String())),
  },
  { title: 'ReasoningItemModel' },
);

export const MessageToolCall = Closed(
  {
    id: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
    origin: Type.Union([Type.Literal('completion'), Type.Literal('responses')]),
    responses_item_id: Type.Optional(Nullable(Type.String())),
  },
  { title: 'MessageToolCall' },
);

export const SecurityRisk = Type.Union(
  [Type.Literal('UNKNOWN'), Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH')],
  { title: 'SecurityRisk' },
);

export const CriticResult = Closed(
  {
    score: Type.Number({ minimum: 0, maximum: 1 }),
    message: Nullable(Type.String()),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  },
  { title: 'CriticResult' },
);

export const Message = Closed(
  {
    role: Type.Union([
      Type.Literal('user'),
      Type.Literal('system'),
      Type.Literal('assistant'),
      Type.Literal('tool'),
    ]),
    content: Type.Optional(Type.Array(Content, { default: [] })),
    tool_calls: Type.Optional(Nullable(Type.Array(MessageToolCall))),
    tool_call_id: Type.Optional(Nullable(Type.String())),
    name: Type.Optional(Nullable(Type.String())),
    reasoning_content: Type.Optional(Nullable(Type.String())),
    thinking_blocks: Type.Optional(Type.Array(AnyThinkingBlock, { default: [] })),
    responses_reasoning_item: Type.Optional(Nullable(ReasoningItemModel)),
  },
  { title: 'Message' },
);

export const ValidationIssueSchema = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
  },
  { title: 'ValidationError' },
);

export const HTTPValidationError = Type.Object(
  { detail: Type.Array(ValidationIssueSchema) },
  { title: 'HTTPValidationError' },
);
