// /api/v1/app-conversations (OpenHands app-server V1): start (answers the task in WORKING and goes
// on in the background), stream-start (one JSON array of task snapshots, written as they happen),
// start tasks, and the app conversations with their live sandbox status.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  type AppConversationService,
  type AppConversationStartRequest,
  hex,
  type SORT_ORDERS,
  StartTaskSortOrder,
  startTaskJson,
} from '../../../app/index.js';
import { detailResponse, errorResponses, UUID_PATTERN } from '../../schemas.js';
import { DateTimeQuery, IdList, PageQuery, recordTime } from './query.js';

export interface AppConversationRoutesOptions {
  apps: AppConversationService;
}

const Ref = (id: string) => Type.Ref(id);
const base = '/api/v1/app-conversations';

const ConversationFilterQuery = {
  title__contains: Type.Optional(Type.String()),
  created_at__gte: DateTimeQuery,
  created_at__lt: DateTimeQuery,
  updated_at__gte: DateTimeQuery,
  updated_at__lt: DateTimeQuery,
};
type ConversationFilterParams = {
  title__contains?: string;
  created_at__gte?: string;
  created_at__lt?: string;
  updated_at__gte?: string;
  updated_at__lt?: string;
  include_sub_conversations?: boolean;
};

function conversationFilter(q: ConversationFilterParams) {
  return {
    titleContains: q.title__contains,
    createdAtGte: recordTime(q.created_at__gte, 'created_at__gte'),
    createdAtLt: recordTime(q.created_at__lt, 'created_at__lt'),
    updatedAtGte: recordTime(q.updated_at__gte, 'updated_at__gte'),
    updatedAtLt: recordTime(q.updated_at__lt, 'updated_at__lt'),
    includeSubConversations: q.include_sub_conversations,
  };
}

const TaskFilterQuery = {
  conversation_id__eq: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
  created_at__gte: DateTimeQuery,
};
type TaskFilterParams = { conversation_id__eq?: string; created_at__gte?: string };
const taskFilter = (q: TaskFilterParams) => ({
  conversationId: q.conversation_id__eq,
  createdAtGte: recordTime(q.created_at__gte, 'created_at__gte'),
});

export const appConversationRoutes: FastifyPluginAsync<AppConversationRoutesOptions> = async (
  app,
  { apps },
) => {
  const tags = ['App Conversations'];

  app.get(
    `${base}/search`,
    {
      schema: {
        tags,
        summary: 'Search App Conversations',
        description: 'Newest first, cursor pages.',
        querystring: Type.Object({
          ...ConversationFilterQuery,
          ...PageQuery,
          include_sub_conversations: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: {
          200: Ref('AppConversationPage'),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query as ConversationFilterParams & { page_id?: string; limit?: number };
      const page = await apps.search(request.userId, {
        ...conversationFilter(q),
        pageId: q.page_id,
        limit: q.limit ?? 100,
      });
      return { items: page.items, next_page_id: page.nextPageId };
    },
  );

  app.get(
    `${base}/count`,
    {
      schema: {
        tags,
        summary: 'Count App Conversations',
        querystring: Type.Object({
          ...ConversationFilterQuery,
          include_sub_conversations: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: { 200: Type.Integer(), ...errorResponses },
      },
    },
    async (request) =>
      apps.count(request.userId, conversationFilter(request.query as ConversationFilterParams)),
  );

  app.get(
    base,
    {
      schema: {
        tags,
        summary: 'Batch Get App Conversations',
        querystring: Type.Object({ ids: IdList(UUID_PATTERN) }),
        response: { 200: Type.Array(Type.Union([Ref('AppConversation'), Type.Null()])), ...errorResponses },
      },
    },
    async (request) => apps.getMany(request.userId, (request.query as { ids: string[] }).ids),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        summary: 'Start App Conversation',
        description:
          'Answers the start task in WORKING; the start goes on in the background (poll GET /api/v1/app-conversations/start-tasks?ids=).',
        body: Ref('AppConversationStartRequest'),
        response: { 200: Ref('AppConversationStartTask'), ...errorResponses },
      },
    },
    async (request) => {
      const { first } = await apps.start(request.userId, request.body as AppConversationStartRequest);
      return startTaskJson(first);
    },
  );

  app.post(
    `${base}/stream-start`,
    {
      schema: {
        tags,
        summary: 'Start App Conversation (streamed)',
        description:
          'One JSON array of the start task as it changes, written as it happens; it ends at READY or ERROR.',
        body: Ref('AppConversationStartRequest'),
        response: { 200: Type.Array(Ref('AppConversationStartTask')), ...errorResponses },
      },
    },
    async (request, reply) => {
      // Validation and the first save happen before the response starts, so their errors keep their status.
      const snapshots: string[] = [];
      let write: ((text: string) => void) | null = null;
      const { done } = await apps.start(
        request.userId,
        request.body as AppConversationStartRequest,
        (task) => {
          const text = JSON.stringify(startTaskJson(task));
          if (write) write(`,\n${text}`);
          else snapshots.push(text);
        },
      );
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, { 'content-type': 'application/json' });
      raw.write(`[\n${snapshots.join(',\n')}`);
      write = (text) => raw.write(text);
      await done;
      raw.end('\n]');
    },
  );

  const taskTags = ['App Conversation Start Tasks'];
  app.get(
    `${base}/start-tasks/search`,
    {
      schema: {
        tags: taskTags,
        summary: 'Search Start Tasks',
        querystring: Type.Object({
          ...TaskFilterQuery,
          sort_order: Type.Optional(StartTaskSortOrder),
          ...PageQuery,
        }),
        response: {
          200: Ref('AppConversationStartTaskPage'),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query as TaskFilterParams & {
        sort_order?: (typeof SORT_ORDERS)[number];
        page_id?: string;
        limit?: number;
      };
      const page = await apps.searchTasks(request.userId, {
        ...taskFilter(q),
        sort: q.sort_order ?? 'CREATED_AT_DESC',
        pageId: q.page_id,
        limit: q.limit ?? 100,
      });
      return {
        items: page.items.map(startTaskJson),
        next_page_id: page.nextPageId ? hex(page.nextPageId) : null,
      };
    },
  );

  app.get(
    `${base}/start-tasks/count`,
    {
      schema: {
        tags: taskTags,
        summary: 'Count Start Tasks',
        querystring: Type.Object(TaskFilterQuery),
        response: { 200: Type.Integer(), ...errorResponses },
      },
    },
    async (request) => apps.countTasks(request.userId, taskFilter(request.query as TaskFilterParams)),
  );

  app.get(
    `${base}/start-tasks`,
    {
      schema: {
        tags: taskTags,
        summary: 'Batch Get Start Tasks',
        querystring: Type.Object({ ids: IdList(UUID_PATTERN) }),
        response: {
          200: Type.Array(Type.Union([Ref('AppConversationStartTask'), Type.Null()])),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const tasks = await apps.getTasks(request.userId, (request.query as { ids: string[] }).ids);
      return tasks.map((t) => (t ? startTaskJson(t) : null));
    },
  );
};
