// /api/conversations/{conversation_id}/events: batch get, search, count, get one, send a message,
// respond to a confirmation. The batch get takes the ids as a JSON array in the body of a GET
// (OpenHands' contract) or as repeated `event_ids` query parameters (for clients that cannot send a
// GET body); Fastify does not read GET bodies, so the raw stream is read here.
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { EventQueries } from '../../conversation/event-queries.js';
import type { SendMessageRequest } from '../../conversation/schemas.js';
import type { ConversationService } from '../../conversation/service.js';
import type { ValidationIssue } from '../../events/index.js';
import { EventIds } from '../../store/index.js';
import { hasBody } from '../body-stall.js';
import { HttpError, RequestValidationError } from '../errors.js';
import { decodeUtf8, parseJsonText } from '../json-body.js';
import {
  ConversationIdParams,
  conversationActionErrors,
  conversationIdOf,
  conversationNotFound,
  detailResponse,
  errorResponses,
} from '../schemas.js';
import { DateTimeQuery, eventTime } from './v1/query.js';

export interface EventRoutesOptions {
  events: EventQueries;
  conversations: ConversationService;
}

/** Largest GET body read, in bytes (a 100-id batch is about 4 KB). */
export const MAX_BODY_BYTES = 1024 * 1024;

const BatchQuery = Type.Object({
  event_ids: Type.Optional(
    Type.Array(Type.String(), { description: 'Event ids, for clients that cannot send a GET body' }),
  ),
});

/** The request body as documented in OpenAPI (added to the GET operation by the OpenAPI transform). */
export const BatchEventIdsBody = Type.Array(Type.String(), { $id: 'BatchEventIds', title: 'Event Ids' });

function readBody(raw: IncomingMessage): Promise<Buffer | null> {
  if (!hasBody(raw)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    raw.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        raw.removeAllListeners('data');
        raw.resume();
        reject(new HttpError(413, 'Request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    raw.once('end', () => resolve(size === 0 ? null : Buffer.concat(chunks)));
    raw.once('error', reject);
  });
}

/** Validates the body as a JSON array of strings (UTF-8, depth-limited); FastAPI-shaped issues otherwise. */
function parseIdList(body: Buffer): EventIds {
  const text = decodeUtf8(body);
  const ids = flatStrings(text);
  if (ids !== null) return new EventIds(ids, text);
  // Not a flat array of strings: the general reader says why, with its exact errors.
  const value = parseJsonText(text);
  if (!Array.isArray(value)) {
    throw new RequestValidationError([
      { loc: ['body'], msg: 'Input should be a valid list', type: 'list_type' },
    ]);
  }
  const issues: ValidationIssue[] = [];
  value.forEach((item, i) => {
    if (typeof item !== 'string')
      issues.push({ loc: ['body', i], msg: 'Input should be a valid string', type: 'string_type' });
  });
  if (issues.length > 0) throw new RequestValidationError(issues);
  return new EventIds(value as string[]);
}

/**
 * The text as a flat JSON array of strings, or null when it is anything else. Such an array is what
 * the general reader would accept too (one level deep, no object keys for a prototype check to
 * refuse), so a well-formed batch skips its depth scan and key checks.
 */
function flatStrings(text: string): string[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return null;
  return value as string[];
}

/**
 * The ids of a batch get: the GET body's JSON array when there is a body (OpenHands), else the
 * repeated `event_ids` query parameters; 422 `missing` when neither.
 */
export async function batchIds(request: { raw: IncomingMessage; query: unknown }): Promise<EventIds> {
  const body = await readBody(request.raw);
  if (body !== null) return parseIdList(body);
  const query = request.query as { event_ids?: string[] };
  if (query.event_ids) return new EventIds(query.event_ids);
  throw new RequestValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
}

const tags = ['Events'];
const base = '/api/conversations/:conversation_id/events';

const FilterQuery = {
  kind: Type.Optional(
    Type.String({ description: 'Event kind: short name (MessageEvent) or OpenHands module path' }),
  ),
  source: Type.Optional(Type.String()),
  body: Type.Optional(Type.String({ description: 'Case-insensitive text of a MessageEvent' })),
  timestamp__gte: DateTimeQuery,
  timestamp__lt: DateTimeQuery,
};

const SearchQuery = Type.Object({
  page_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  sort_order: Type.Optional(
    Type.Union([Type.Literal('TIMESTAMP'), Type.Literal('TIMESTAMP_DESC')], { default: 'TIMESTAMP' }),
  ),
  ...FilterQuery,
});

type FilterParams = {
  kind?: string;
  source?: string;
  body?: string;
  timestamp__gte?: string;
  timestamp__lt?: string;
};

function eventQuery(q: FilterParams) {
  return {
    kind: q.kind,
    source: q.source,
    body: q.body,
    timestampGte: eventTime(q.timestamp__gte, 'timestamp__gte'),
    timestampLt: eventTime(q.timestamp__lt, 'timestamp__lt'),
  };
}

const json = 'application/json; charset=utf-8';

export const eventRoutes: FastifyPluginAsync<EventRoutesOptions> = async (app, { events, conversations }) => {
  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'Batch Get Conversation Events',
        description: 'One item per requested id, in order: the event, or null where it is missing.',
        params: ConversationIdParams,
        querystring: BatchQuery,
        response: {
          200: Type.Array(Type.Union([Type.Ref('Event'), Type.Null()])),
          ...conversationNotFound,
          413: detailResponse(`The body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const ids = await batchIds(request);
      return reply.type(json).send(await events.batch(request.userId, conversationIdOf(request), ids));
    },
  );

  app.get(
    `${base}/search`,
    {
      schema: {
        tags,
        summary: 'Search Conversation Events',
        params: ConversationIdParams,
        querystring: SearchQuery,
        response: {
          200: Type.Object({
            items: Type.Array(Type.Ref('Event')),
            next_page_id: Type.Union([Type.String(), Type.Null()]),
          }),
          400: detailResponse('Unknown page_id'),
          ...conversationNotFound,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as FilterParams & { page_id?: string; limit?: number; sort_order?: string };
      const page = await events.search(request.userId, conversationIdOf(request), {
        ...eventQuery(q),
        pageId: q.page_id,
        limit: q.limit ?? 100,
        order: q.sort_order === 'TIMESTAMP_DESC' ? 'desc' : 'asc',
      });
      return reply.type(json).send(page);
    },
  );

  app.get(
    `${base}/count`,
    {
      schema: {
        tags,
        summary: 'Count Conversation Events',
        params: ConversationIdParams,
        querystring: Type.Object(FilterQuery),
        response: { 200: Type.Integer(), ...conversationNotFound, ...errorResponses },
      },
    },
    async (request) =>
      events.count(request.userId, conversationIdOf(request), eventQuery(request.query as FilterParams)),
  );

  app.get(
    `${base}/:event_id`,
    {
      schema: {
        tags,
        summary: 'Get Conversation Event',
        params: Type.Object({ ...ConversationIdParams.properties, event_id: Type.String() }),
        response: {
          200: Type.Ref('Event'),
          404: detailResponse('Unknown conversation or event'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const eventId = (request.params as { event_id: string }).event_id;
      const event = await events.get(request.userId, conversationIdOf(request), eventId);
      if (event === null) throw new HttpError(404, `Event not found: ${eventId}`);
      return reply.type(json).send(event);
    },
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Send Message',
        description: 'Appends a user message; with `run: true` the agent starts working on it.',
        params: ConversationIdParams,
        body: Type.Ref('SendMessageRequest'),
        response: { 200: Type.Ref('Success'), ...conversationActionErrors, ...errorResponses },
      },
    },
    async (request) => {
      await conversations.sendMessage(
        request.userId,
        conversationIdOf(request),
        request.body as SendMessageRequest,
      );
      return { success: true };
    },
  );

  app.post(
    `${base}/respond_to_confirmation`,
    {
      schema: {
        tags,
        summary: 'Respond To Confirmation',
        params: ConversationIdParams,
        body: Type.Ref('ConfirmationResponseRequest'),
        response: { 200: Type.Ref('Success'), ...conversationActionErrors, ...errorResponses },
      },
    },
    async (request) => {
      const { accept, reason } = request.body as { accept: boolean; reason?: string };
      await conversations.respondToConfirmation(
        request.userId,
        conversationIdOf(request),
        accept,
        reason ?? 'User rejected the action.',
      );
      return { success: true };
    },
  );
};
