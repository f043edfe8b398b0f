// OpenHands' GET /api/microagent-management/conversations, which its microagent management page reads
// beside a repository's microagents (git-providers.ts): the conversations that page started for the
// repository whose pull request is still open. On the control plane only, as in OpenHands' app server.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppConversationService } from '../../app/index.js';
import type { ConversationService } from '../../conversation/service.js';
import type { GitProviders } from '../../git-providers/index.js';
import { microagentManagementPage } from '../legacy-conversation.js';
import { detailResponse, errorResponses } from '../schemas.js';

export interface MicroagentManagementRoutesOptions {
  conversations: ConversationService;
  apps: AppConversationService;
  providers: GitProviders;
}

export const microagentManagementRoutes: FastifyPluginAsync<MicroagentManagementRoutesOptions> = async (
  app,
  { conversations, apps, providers },
) => {
  app.get(
    '/api/microagent-management/conversations',
    {
      schema: {
        tags: ['Conversations'],
        summary: 'Get Microagent Management Conversations',
        description:
          "Among the caller's newest `limit` conversations (from `page_id`), those OpenHands' microagent management page started for `selected_repository` (trigger `microagent_management`), less those whose last pull request GitHub reads closed or merged.",
        querystring: Type.Object({
          selected_repository: Type.String({ minLength: 1, maxLength: 200 }),
          page_id: Type.Optional(Type.String({ maxLength: 64 })),
          // OpenHands' web UI asks for 1,000.
          limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
        }),
        response: {
          200: Type.Ref('LegacyConversationResultSet'),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    (request) => {
      const q = request.query as { selected_repository: string; page_id?: string; limit: number };
      return microagentManagementPage(
        conversations,
        apps,
        request.userId,
        { repository: q.selected_repository, limit: q.limit, ...(q.page_id ? { pageId: q.page_id } : {}) },
        providers.pullRequestChecks(request.userId),
      );
    },
  );
};
