// The wire types of the OpenAI-compatible gateway: the chat completion request as OpenAI's clients
// send it (the members the gateway reads; the others are ignored, as OpenHands ignores them) and
// OpenAI's ChatCompletion and model list shapes (the streamed chunks are the route's: routes/openai.ts).
import { type Static, Type } from 'typebox';

const open = { additionalProperties: true };
const MAX_TEXT = 1024 * 1024;

const ContentPart = Type.Object(
  {
    type: Type.String({ maxLength: 64 }),
    text: Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEXT }), Type.Null()])),
    image_url: Type.Optional(
      Type.Union([
        Type.String({ maxLength: MAX_TEXT }),
        Type.Object({ url: Type.String({ maxLength: MAX_TEXT }) }, open),
        Type.Null(),
      ]),
    ),
  },
  open,
);

export const ChatMessage = Type.Object(
  {
    role: Type.Union(['system', 'developer', 'user', 'assistant', 'tool'].map((r) => Type.Literal(r))),
    content: Type.Optional(
      Type.Union([
        Type.String({ maxLength: MAX_TEXT }),
        Type.Array(ContentPart, { maxItems: 100 }),
        Type.Null(),
      ]),
    ),
  },
  open,
);
export type ChatMessage = Static<typeof ChatMessage>;

export const ChatCompletionRequest = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 256,
      description: '`openhands_<profile>`: an LLM profile (GET /v1/models)',
    }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 1000 }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, open), Type.Null()]),
    ),
  },
  { ...open, title: 'ChatCompletionRequest' },
);
export type ChatCompletionRequest = Static<typeof ChatCompletionRequest>;

const Usage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
});
export type Usage = Static<typeof Usage>;

export const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        finish_reason: Type.Literal('stop'),
        message: Type.Object({ role: Type.Literal('assistant'), content: Type.String() }),
        logprobs: Type.Null(),
      }),
    ),
    usage: Usage,
  },
  { title: 'ChatCompletion' },
);
export type ChatCompletion = Static<typeof ChatCompletion>;

export const ModelList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(
      Type.Object({
        id: Type.String(),
        object: Type.Literal('model'),
        created: Type.Integer(),
        owned_by: Type.String(),
      }),
    ),
  },
  { title: 'ModelList' },
);
export type ModelList = Static<typeof ModelList>;
