// /api/bash: OpenHands' bash family. Commands run with the rights of this server (as its terminal
// tool does); the events they produce are searched by the SDK's RemoteWorkspace.execute_command, which
// polls bash_events/search with kind__eq=BashOutput, command_id__eq, order__gt, sort_order=TIMESTAMP,
// limit=100 until a BashOutput carries an exit_code.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  type BashService,
  BatchTooLargeError,
  bashSchemas,
  type ExecuteBashRequest,
  InvalidPageIdError,
  TooManyCommandsError,
} from '../../bash/index.js';
import { HttpError, RequestValidationError } from '../errors.js';
import { detailResponse, errorResponses, UUID_PATTERN } from '../schemas.js';
import { batchIds, MAX_BODY_BYTES } from './events.js';
import { DateTimeQuery, eventTime } from './v1/query.js';

export interface BashRoutesOptions {
  bash: BashService;
}

const SearchQuery = Type.Object({
  kind__eq: Type.Optional(Type.Union([Type.Literal('BashCommand'), Type.Literal('BashOutput')])),
  command_id__eq: Type.Optional(
    Type.String({ pattern: UUID_PATTERN, description: 'dashed or 32 hex digits' }),
  ),
  timestamp__gte: DateTimeQuery,
  timestamp__lt: DateTimeQuery,
  order__gt: Type.Optional(
    Type.Integer({
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Only BashOutput events with order greater than this (polling for new chunks)',
    }),
  ),
  sort_order: Type.Optional(bashSchemas.BashEventSortOrder),
  page_id: Type.Optional(Type.String({ maxLength: 32, description: 'next_page_id of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
});
type SearchQuery = {
  kind__eq?: 'BashCommand' | 'BashOutput';
  command_id__eq?: string;
  timestamp__gte?: string;
  timestamp__lt?: string;
  order__gt?: number;
  sort_order?: 'TIMESTAMP' | 'TIMESTAMP_DESC';
  page_id?: string;
  limit?: number;
};

/** Ids one batch get may ask for. */
const MAX_BATCH_IDS = 100;

const BatchQuery = Type.Object({
  event_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: MAX_BATCH_IDS,
      description: 'Event ids, for clients that cannot send a GET body',
    }),
  ),
});

const EventIdParams = Type.Object({ event_id: Type.String({ maxLength: 64 }) });

const tooMany = { 429: detailResponse('Too many commands running at once') };
const tags = ['Bash'];

/** Bash events carry UTC timestamps with a Z; a query datetime in the same form compares as text. */
const bashTime = (value: string | undefined, name: string) => {
  const t = eventTime(value, name);
  return t === undefined ? undefined : `${t}Z`;
};

export const bashRoutes: FastifyPluginAsync<BashRoutesOptions> = async (app, { bash }) => {
  const pageMb = bash.limits.maxPageBytes / 1024 / 1024;
  const launch = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof TooManyCommandsError) throw new HttpError(429, error.message);
      throw error;
    }
  };

  app.get(
    '/api/bash/bash_events/search',
    {
      schema: {
        tags,
        summary: 'Search Bash Events',
        description:
          `A page holds at most \`limit\` events and at most ${pageMb} MB of JSON: a page that would pass ` +
          'that ends early (never before its first event), and its `next_page_id` names the first event ' +
          'left out, so paging goes on exactly there. The SDK, which polls with `order__gt`, reads the ' +
          'rest on its next poll.',
        querystring: SearchQuery,
        response: {
          200: bashSchemas.BashEventPage,
          400: detailResponse('page_id is not a next_page_id of this server'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query as SearchQuery;
      try {
        return bash.search(
          {
            kind: q.kind__eq,
            commandId: q.command_id__eq?.replaceAll('-', '').toLowerCase(),
            timestampGte: bashTime(q.timestamp__gte, 'timestamp__gte'),
            timestampLt: bashTime(q.timestamp__lt, 'timestamp__lt'),
            orderGt: q.order__gt,
            descending: q.sort_order === 'TIMESTAMP_DESC',
            pageId: q.page_id,
            limit: q.limit ?? 100,
          },
          request.userId,
        );
      } catch (error) {
        if (error instanceof InvalidPageIdError) throw new HttpError(400, error.message);
        throw error;
      }
    },
  );

  app.get(
    '/api/bash/bash_events/',
    {
      schema: {
        tags,
        summary: 'Batch Get Bash Events',
        description:
          'One item per requested id, in order: the event, or null where it is missing (a repeated id ' +
          `is answered again). Events that add up to more than ${pageMb} MB of JSON are refused with a ` +
          '400: ask for fewer at a time (one event alone is always answered).',
        querystring: BatchQuery,
        response: {
          200: Type.Array(Type.Union([bashSchemas.BashEvent, Type.Null()])),
          400: detailResponse(`The requested events add up to more than ${pageMb} MB of JSON`),
          413: detailResponse(`The body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      // OpenHands takes the ids as a JSON array in the body of this GET (Fastify does not read it).
      const ids = (await batchIds(request)).list;
      if (ids.length > MAX_BATCH_IDS)
        throw new RequestValidationError([
          { loc: ['body'], msg: `List should have at most ${MAX_BATCH_IDS} items`, type: 'too_long' },
        ]);
      try {
        return bash.batch(ids, request.userId);
      } catch (error) {
        if (error instanceof BatchTooLargeError) throw new HttpError(400, error.message);
        throw error;
      }
    },
  );

  app.get(
    '/api/bash/bash_events/:event_id',
    {
      schema: {
        tags,
        summary: 'Get Bash Event',
        params: EventIdParams,
        response: {
          200: bashSchemas.BashEvent,
          404: detailResponse('No such bash event'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const event = bash.get((request.params as { event_id: string }).event_id, request.userId);
      if (!event) throw new HttpError(404, 'Bash event not found');
      return event;
    },
  );

  app.post(
    '/api/bash/start_bash_command',
    {
      schema: {
        tags,
        summary: 'Start Bash Command',
        description:
          'Starts the command in the background (as this server) and answers its BashCommand event.',
        body: bashSchemas.ExecuteBashRequest,
        response: { 200: bashSchemas.BashCommand, ...tooMany, ...errorResponses },
      },
    },
    async (request) => launch(() => bash.start(request.body as ExecuteBashRequest, request.userId)),
  );

  app.post(
    '/api/bash/execute_bash_command',
    {
      schema: {
        tags,
        summary: 'Execute Bash Command',
        description:
          'Runs the command (as this server), waits for it to end, and answers its last BashOutput.',
        body: bashSchemas.ExecuteBashRequest,
        response: { 200: bashSchemas.BashOutput, ...tooMany, ...errorResponses },
      },
    },
    async (request) => await launch(() => bash.execute(request.body as ExecuteBashRequest, request.userId)),
  );

  app.delete(
    '/api/bash/bash_events',
    {
      schema: {
        tags,
        summary: 'Clear All Bash Events',
        response: {
          200: Type.Object({ cleared_count: Type.Integer({ minimum: 0 }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => ({ cleared_count: bash.clear(request.userId) }),
  );
};
