// OpenHands' /goal routes: start, stop and resume a goal loop inside a conversation (the loop:
// conversation/goal-loop.ts). Its progress reaches clients as ConversationStateUpdateEvents `goal`.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { ConversationService } from '../../conversation/service.js';
import {
  ConversationIdParams,
  conversationActionErrors,
  conversationIdOf,
  detailResponse,
  errorResponses,
} from '../schemas.js';

const tags = ['Conversations'];
const busy = detailResponse(
  'The conversation is running, or a goal loop already is (stop it first), or it runs in a sandbox',
);

export const conversationGoalRoutes: FastifyPluginAsync<{ conversations: ConversationService }> = async (
  app,
  { conversations },
) => {
  app.post(
    '/api/conversations/:conversation_id/goal',
    {
      schema: {
        tags,
        summary: 'Start Goal In Conversation',
        description:
          "Sends the objective and runs the agent; after each run the agent's LLM audits the transcript, and the loop sends what is missing and runs again until the objective is judged done (`complete`) or max_iterations audits are spent (`capped`). Each status is a ConversationStateUpdateEvent `goal` ({active, status, iteration, max_iterations, objective, verdict}). A pause, an interrupt, an error, a stop or a client's message ends it as `interrupted` (resumable).",
        params: ConversationIdParams,
        body: Type.Ref('StartGoalRequest'),
        response: { 200: Type.Ref('Success'), ...conversationActionErrors, 409: busy, ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body as { objective: string; max_iterations?: number };
      await conversations.startGoal(
        request.userId,
        conversationIdOf(request),
        body.objective,
        body.max_iterations ?? 10,
      );
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/goal/stop',
    {
      schema: {
        tags,
        summary: 'Stop Goal In Conversation',
        description:
          'Ends the goal loop (status `interrupted`, resumable); a run under way goes on (interrupt stops it). Success when no loop runs, too.',
        params: ConversationIdParams,
        response: { 200: Type.Ref('Success'), ...conversationActionErrors, ...errorResponses },
      },
    },
    async (request) => {
      await conversations.stopGoal(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/goal/resume',
    {
      schema: {
        tags,
        summary: 'Resume Goal In Conversation',
        description:
          'Goes on with the last goal that did not complete or reach its cap (stopped, paused, cut off by a restart), from the audit rounds it had done.',
        params: ConversationIdParams,
        response: {
          200: Type.Ref('Success'),
          400: detailResponse('No goal to resume'),
          ...conversationActionErrors,
          409: busy,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await conversations.resumeGoal(request.userId, conversationIdOf(request));
      return { success: true };
    },
  );
};
