// OpenHands' OpenAI-compatible gateway (/v1/models, /v1/chat/completions): OpenAI's clients run the
// agent as if it were a model. The session key goes as OpenAI's (`Authorization: Bearer`) or as
// agentd's header. A completion answers once the agent has; `stream` sends that answer as OpenAI's
// server-sent chunks. `X-OpenHands-ServerConversation-ID` names the conversation both ways. Errors
// carry OpenAI's `error: {message, type}` beside `detail`.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { type ChatGateway, GatewayError } from '../../gateway/openai.js';
import {
  type ChatCompletion,
  ChatCompletionRequest,
  ChatCompletion as ChatCompletionSchema,
  ModelList,
} from '../../gateway/schemas.js';
import { HttpError } from '../errors.js';
import { dashedUuid, detailResponse, errorResponses } from '../schemas.js';

const CONVERSATION_HEADER = 'x-openhands-serverconversation-id';

const STATUS: Record<GatewayError['kind'], number> = {
  bad_request: 400,
  unknown_model: 404,
  not_finished: 409,
  failed: 502,
  timeout: 504,
  shutting_down: 503,
};

export const openaiRoutes: FastifyPluginAsync<{ gateway: ChatGateway }> = async (app, { gateway }) => {
  const tags = ['OpenAI Compatibility'];
  // A completion waits for its run; at shutdown it answers 503 at once rather than at the cut.
  app.addHook('preClose', async () => gateway.close());
  // OpenAI's clients read an error's message from `error.message` (else they show none): each error
  // answer here carries OpenAI's `error` beside FastAPI's `detail`.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as { detail?: unknown };
      const message = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
      const type = reply.statusCode < 500 ? 'invalid_request_error' : 'api_error';
      return JSON.stringify({ ...body, error: { message, type, param: null, code: null } });
    } catch {
      return payload;
    }
  });

  app.get(
    '/v1/models',
    {
      schema: {
        tags,
        summary: 'List Models',
        description: 'Your LLM profiles as models: `openhands_<profile>`.',
        response: { 200: ModelList, ...errorResponses },
      },
    },
    async (request) => gateway.models(request.userId),
  );

  app.post(
    '/v1/chat/completions',
    {
      schema: {
        tags,
        summary: 'Create Chat Completion',
        description:
          "Runs the last user message as a task in a conversation of its own (system and developer messages join the agent's system prompt), or in the conversation `X-OpenHands-ServerConversation-ID` names, and answers the agent's final response once it has finished (at most 10 minutes: then a 504, the conversation goes on). Its id comes back in that header, also with a 409, 502, 503 or 504.",
        headers: Type.Object({
          [CONVERSATION_HEADER]: Type.Optional(
            Type.String({
              pattern: '^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$',
              description: 'A conversation to go on with',
            }),
          ),
        }),
        body: ChatCompletionRequest,
        response: {
          200: {
            description: 'The completion; with `stream`, the same as chunks (server-sent events)',
            content: {
              'application/json': { schema: ChatCompletionSchema },
              'text/event-stream': { schema: { type: 'string' } },
            },
          },
          400: detailResponse('No user message, or a content part the agent cannot take'),
          404: detailResponse('The model names none of your LLM profiles'),
          409: detailResponse('The run stopped before its end (paused, or waiting for a confirmation)'),
          502: detailResponse('The run ended in an error, or stuck'),
          503: detailResponse('The server is shutting down (the run is cut off; the conversation is kept)'),
          504: detailResponse('The agent had not finished in time (the conversation goes on)'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as ChatCompletionRequest;
      const named = request.headers[CONVERSATION_HEADER] as string | undefined;
      try {
        const { conversationId, completion } = await gateway.complete(
          request.userId,
          body,
          named ? dashedUuid(named) : null,
        );
        reply.header(CONVERSATION_HEADER, conversationId);
        if (!body.stream) return completion;
        return streamed(reply, completion, body.stream_options?.include_usage === true);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        if (error.conversationId) reply.header(CONVERSATION_HEADER, error.conversationId);
        throw new HttpError(STATUS[error.kind], error.message);
      }
    },
  );
};

/** The answer as OpenAI's chunks: the role, the content, the finish reason, the usage when asked, [DONE]. */
function streamed(reply: FastifyReply, completion: ChatCompletion, includeUsage: boolean): FastifyReply {
  const { id, created, model } = completion;
  const choice = completion.choices[0]!;
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const delta = (d: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, finish_reason: finish }]);
  const events = [
    delta({ role: 'assistant' }),
    delta({ content: choice.message.content }),
    delta({}, choice.finish_reason),
    ...(includeUsage ? [chunk([], { usage: completion.usage })] : []),
    'data: [DONE]\n\n',
  ];
  return reply.type('text/event-stream').header('cache-control', 'no-cache').send(events.join(''));
}
