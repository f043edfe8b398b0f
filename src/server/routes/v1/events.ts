// /api/v1/events (OpenHands app-server V1): events of all the user's conversations, the sandboxed
// ones included (their events are synced into this server's store). Unlike OpenHands, pages never
// skip an event at their boundary, and zoned datetimes work.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { OwnerEventQueries } from '../../../conversation/event-queries.js';
import { dashedUuid, EVENT_KIND_PATHS } from '../../../events/index.js';
import { detailResponse, errorResponses, UUID_PATTERN } from '../../schemas.js';
import { DateTimeQuery, eventTime, IdList, PageQuery } from './query.js';

export interface V1EventRoutesOptions {
  events: OwnerEventQueries;
}

const json = 'application/json; charset=utf-8';

const FilterQuery = {
  conversation_id__eq: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
  kind__eq: Type.Optional(
    Type.Unsafe<string>({ type: 'string', enum: Object.keys(EVENT_KIND_PATHS), title: 'EventKind' }),
  ),
  timestamp__gte: DateTimeQuery,
  timestamp__lt: DateTimeQuery,
  sort_order: Type.Optional(
    Type.Union([Type.Literal('TIMESTAMP'), Type.Literal('TIMESTAMP_DESC')], { default: 'TIMESTAMP' }),
  ),
};
type FilterParams = {
  conversation_id__eq?: string;
  kind__eq?: string;
  timestamp__gte?: string;
  timestamp__lt?: string;
  sort_order?: 'TIMESTAMP' | 'TIMESTAMP_DESC';
};

function filter(q: FilterParams) {
  return {
    conversationId: q.conversation_id__eq ? dashedUuid(q.conversation_id__eq) : undefined,
    query: {
      kind: q.kind__eq,
      timestampGte: eventTime(q.timestamp__gte, 'timestamp__gte'),
      timestampLt: eventTime(q.timestamp__lt, 'timestamp__lt'),
    },
  };
}

export const v1EventRoutes: FastifyPluginAsync<V1EventRoutesOptions> = async (app, { events }) => {
  const tags = ['Events'];

  app.get(
    '/api/v1/events/search',
    {
      schema: {
        tags,
        summary: 'Search Events',
        querystring: Type.Object({ ...FilterQuery, ...PageQuery }),
        response: {
          200: Type.Object({
            items: Type.Array(Type.Ref('Event')),
            next_page_id: Type.Union([Type.String(), Type.Null()]),
          }),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query as FilterParams & { page_id?: string; limit?: number };
      const { conversationId, query } = filter(q);
      const page = await events.search(request.userId, conversationId, {
        ...query,
        pageId: q.page_id,
        limit: q.limit ?? 100,
        order: q.sort_order === 'TIMESTAMP_DESC' ? 'desc' : 'asc',
      });
      return reply.type(json).send(page);
    },
  );

  app.get(
    '/api/v1/events/count',
    {
      schema: {
        tags,
        summary: 'Count Events',
        querystring: Type.Object(FilterQuery),
        response: { 200: Type.Integer(), ...errorResponses },
      },
    },
    async (request) => {
      const { conversationId, query } = filter(request.query as FilterParams);
      return events.count(request.userId, conversationId, query);
    },
  );

  app.get(
    '/api/v1/events',
    {
      schema: {
        tags,
        summary: 'Batch Get Events',
        querystring: Type.Object({ id: IdList() }),
        response: { 200: Type.Array(Type.Union([Type.Ref('Event'), Type.Null()])), ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.type(json).send(await events.batch(request.userId, (request.query as { id: string[] }).id)),
  );
};
