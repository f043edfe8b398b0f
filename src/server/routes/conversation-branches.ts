// A conversation's branches: fork (a new conversation from its events up to one) and navigate (its
// HEAD moved to one of its events, the next ones branching from there). An unknown conversation or
// event is a 404.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { ForkRequest } from '../../conversation/fork.js';
import type { ConversationService } from '../../conversation/service.js';
import { ConversationIdParams, conversationIdOf, detailResponse, errorResponses } from '../schemas.js';

const tags = ['Conversations'];
const Ref = (id: string) => Type.Ref(id);
const IncludeSkillsQuery = Type.Object({
  include_skills: Type.Optional(
    Type.Boolean({
      description: 'Accepted for OpenHands clients; agentd’s ConversationInfo carries no skills',
    }),
  ),
});

export const conversationBranchRoutes: FastifyPluginAsync<{ conversations: ConversationService }> = async (
  app,
  { conversations },
) => {
  app.post(
    '/api/conversations/:conversation_id/fork',
    {
      schema: {
        tags,
        summary: 'Fork Conversation',
        description:
          "Copies the conversation (agent, state, events up to now or up to from_event_id) into a new, idle conversation that runs on its own. The copied events get new ids (agentd's event ids are unique store-wide), with the references between them rewritten.",
        params: ConversationIdParams,
        querystring: IncludeSkillsQuery,
        body: Ref('ForkConversationRequest'),
        response: {
          201: Ref('ConversationInfo'),
          404: detailResponse('Unknown conversation, or from_event_id is not one of its events'),
          409: detailResponse(
            'The fork id is taken, or the conversation runs in a sandbox (send the request to its conversation_url)',
          ),
          ...errorResponses,
        },
      },
      // The body is optional, as in OpenHands (every member has a default).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const body = request.body as ForkRequest;
      return reply.code(201).send(await conversations.fork(request.userId, conversationIdOf(request), body));
    },
  );

  app.post(
    '/api/conversations/:conversation_id/navigate',
    {
      schema: {
        tags,
        summary: 'Navigate Conversation',
        description:
          "Moves the conversation's HEAD to one of its events (event_id; null: an empty tree). The events appended next start a branch from there, and the agent sees only the path from the root to HEAD; every branch stays in the log, and no conversation is created (fork does that). The answer carries the new leaf_event_id.",
        params: ConversationIdParams,
        querystring: IncludeSkillsQuery,
        body: Ref('NavigateConversationRequest'),
        response: {
          200: Ref('ConversationInfo'),
          404: detailResponse('Unknown conversation, or event_id is not one of its events'),
          409: detailResponse(
            'The conversation is running (pause it first), or runs in a sandbox (send the request to its conversation_url)',
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const body = request.body as { event_id?: string | null };
      return conversations.navigate(request.userId, conversationIdOf(request), body.event_id ?? null);
    },
  );
};
