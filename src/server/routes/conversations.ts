// /api/conversations: start, read, list, run, pause, interrupt, condense, ask, update, delete (fork and
// navigate: conversation-branches.ts).
// An unknown conversation is 404 on every route (OpenHands answers 400 for pause, interrupt and
// delete and `200 {success:false}` for PATCH); its 500s on large limits are 422 here.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AgentSpec, ExecutionStatus, StartConversationRequest } from '../../conversation/schemas.js';
import type { ConversationService } from '../../conversation/service.js';
import type { ConversationSearch } from '../../store/index.js';
import { notFound } from '../errors.js';
import {
  type AppConversationLookup,
  conversationPageId,
  legacyConfig,
  legacyPage,
  withLegacyMembers,
} from '../legacy-conversation.js';
import {
  ConversationIdParams,
  conversationActionErrors,
  conversationIdOf,
  conversationNotFound,
  dashedUuid,
  detailResponse,
  errorResponses,
  UUID_PATTERN,
} from '../schemas.js';

export interface ConversationRoutesOptions {
  conversations: ConversationService;
  /** The control plane's app conversations (sandboxed ones get their url and key from it); absent without one. */
  apps?: AppConversationLookup;
}

const tags = ['Conversations'];
const Ref = (id: string) => Type.Ref(id);
const success = { 200: Ref('Success'), ...conversationActionErrors, ...errorResponses };

const SearchQuery = Type.Object({
  page_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  status: Type.Optional(Ref('ConversationExecutionStatus')),
  sort_order: Type.Optional(
    Type.Union(
      ['CREATED_AT', 'UPDATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT_DESC'].map((s) => Type.Literal(s)),
      {
        default: 'CREATED_AT_DESC',
      },
    ),
  ),
});

export const conversationRoutes: FastifyPluginAsync<ConversationRoutesOptions> = async (
  app,
  { conversations, apps },
) => {
  app.post(
    '/api/conversations',
    {
      schema: {
        tags,
        summary: 'Start Conversation',
        body: Ref('StartConversationRequest'),
        response: {
          200: Ref('ConversationInfo'),
          201: Ref('ConversationInfo'),
          404: detailResponse(
            'agent_profile_id names no agent profile of the caller, or one whose LLM profile is gone',
          ),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as StartConversationRequest & { agent?: AgentSpec };
      const { info, created } = await conversations.start(request.userId, body);
      return reply.code(created ? 201 : 200).send(info);
    },
  );

  // One path, two operations told apart by the query: with `ids` it is the agent server's batch get
  // (the SDK and the control plane call it so); without, OpenHands' legacy page that the web UI's
  // Recent Conversations reads (frontend/src/api/conversation-service/conversation-service.api.ts
  // getUserConversations).
  app.get(
    '/api/conversations',
    {
      schema: {
        tags,
        summary: 'Batch Get Conversations, or the legacy conversation page',
        description:
          'With ids: list[ConversationInfo | null] in the order asked (agent server). Without ids: {results, next_page_id}, newest first (OpenHands app server), limit (default 20) and page_id; selected_repository and conversation_trigger filter within the page.',
        querystring: Type.Object({
          ids: Type.Optional(
            Type.Array(Type.String({ pattern: UUID_PATTERN }), { minItems: 1, maxItems: 100 }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
          page_id: Type.Optional(Type.String()),
          selected_repository: Type.Optional(Type.String()),
          conversation_trigger: Type.Optional(Type.String()),
          include_sub_conversations: Type.Optional(Type.Boolean({ default: false })),
        }),
        response: {
          200: Type.Union([
            Type.Array(Type.Union([Ref('ConversationInfo'), Type.Null()])),
            Ref('LegacyConversationResultSet'),
          ]),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query as {
        ids?: string[];
        limit?: number;
        page_id?: string;
        selected_repository?: string;
        conversation_trigger?: string;
        include_sub_conversations?: boolean;
      };
      if (q.ids) return conversations.infoMany(request.userId, q.ids.map(dashedUuid));
      return legacyPage(conversations, apps, request.userId, {
        limit: q.limit ?? 20,
        pageId: q.page_id,
        selectedRepository: q.selected_repository,
        trigger: q.conversation_trigger,
        includeSubConversations: q.include_sub_conversations,
      });
    },
  );

  app.get(
    '/api/conversations/search',
    {
      schema: {
        tags,
        summary: 'Search Conversations',
        querystring: SearchQuery,
        response: { 200: Ref('ConversationPage'), 400: detailResponse('Unknown page_id'), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query as {
        page_id?: string;
        limit?: number;
        status?: ExecutionStatus;
        sort_order?: ConversationSearch['sort'];
      };
      const page = await conversations.search(request.userId, {
        pageId: q.page_id ? conversationPageId(q.page_id) : undefined,
        limit: q.limit ?? 100,
        executionStatus: q.status,
        sort: q.sort_order ?? 'CREATED_AT_DESC',
      });
      return {
        items: await conversations.infos(page.items),
        next_page_id: page.nextPageId?.replaceAll('-', '') ?? null,
      };
    },
  );

  app.get(
    '/api/conversations/count',
    {
      schema: {
        tags,
        summary: 'Count Conversations',
        querystring: Type.Object({ status: Type.Optional(Ref('ConversationExecutionStatus')) }),
        response: { 200: Type.Integer(), ...errorResponses },
      },
    },
    async (request) => conversations.count(request.userId, (request.query as { status?: string }).status),
  );

  app.get(
    '/api/conversations/:conversation_id',
    {
      schema: {
        tags,
        summary: 'Get Conversation',
        description:
          "One object in both shapes: the agent server's ConversationInfo and OpenHands' legacy app-server members the web UI reads (url, session_api_key, status, ...); each client ignores the other's members.",
        params: ConversationIdParams,
        response: { 200: Ref('ConversationInfoBothShapes'), ...conversationNotFound, ...errorResponses },
      },
    },
    async (request) =>
      withLegacyMembers(
        conversations,
        apps,
        request.userId,
        await conversations.get(request.userId, conversationIdOf(request)),
      ),
  );

  app.get(
    '/api/conversations/:conversation_id/config',
    {
      schema: {
        tags,
        summary: 'Get Conversation Config (legacy)',
        description:
          'OpenHands: {runtime_id: the sandbox id, session_id: the path id}; runtime_id is null for a local conversation.',
        params: ConversationIdParams,
        response: { 200: Ref('LegacyConversationConfig'), ...conversationNotFound, ...errorResponses },
      },
    },
    async (request) => {
      const given = (request.params as { conversation_id: string }).conversation_id;
      return legacyConfig(conversations, request.userId, conversationIdOf(request), given);
    },
  );

  app.get(
    '/api/conversations/:conversation_id/agent_final_response',
    {
      schema: {
        tags,
        summary: 'Get Agent Final Response',
        params: ConversationIdParams,
        response: {
          200: Type.Object({ response: Type.String() }),
          ...conversationNotFound,
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      response: await conversations.finalResponse(request.userId, conversationIdOf(request)),
    }),
  );

  app.delete(
    '/api/conversations/:conversation_id',
    { schema: { tags, summary: 'Delete Conversation', params: ConversationIdParams, response: success } },
    async (request) => {
      await conversations.delete(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/run',
    { schema: { tags, summary: 'Run Conversation', params: ConversationIdParams, response: success } },
    async (request) => {
      await conversations.run(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/pause',
    { schema: { tags, summary: 'Pause Conversation', params: ConversationIdParams, response: success } },
    async (request) => {
      await conversations.pause(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/interrupt',
    { schema: { tags, summary: 'Interrupt Conversation', params: ConversationIdParams, response: success } },
    async (request) => {
      await conversations.interrupt(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );

  app.patch(
    '/api/conversations/:conversation_id',
    {
      schema: {
        tags,
        summary: 'Update Conversation',
        params: ConversationIdParams,
        body: Ref('UpdateConversationRequest'),
        response: success,
      },
    },
    async (request) => {
      const patch = request.body as { title?: string; tags?: Record<string, string> };
      const conversationId = conversationIdOf(request);
      if (!(await conversations.update(request.userId, conversationId, patch))) {
        throw notFound(`Conversation not found: ${conversationId}`);
      }
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/condense',
    {
      schema: {
        tags,
        summary: 'Condense Conversation',
        description:
          'Forces a condensation of the history the LLM sees: records a CondensationRequest and condenses at once (after the current step when running). success is false when the summary call failed. 400 when the conversation has no condenser.',
        params: ConversationIdParams,
        response: { ...success, 400: detailResponse('The conversation has no condenser') },
      },
    },
    async (request) => ({ success: await conversations.condense(request.userId, conversationIdOf(request)) }),
  );

  app.post(
    '/api/conversations/:conversation_id/ask_agent',
    {
      schema: {
        tags,
        summary: 'Ask Agent',
        params: ConversationIdParams,
        body: Ref('AskAgentRequest'),
        response: {
          200: Ref('AskAgentResponse'),
          502: detailResponse('The LLM failed to answer (its error in detail)'),
          ...conversationActionErrors,
          ...errorResponses,
        },
      },
    },
    async (request) => ({
      response: await conversations.ask(
        request.userId,
        conversationIdOf(request),
        (request.body as { question: string }).question,
      ),
    }),
  );
};
