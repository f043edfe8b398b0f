// GET /api/v1/users/me (OpenHands app-server V1): the caller's settings and user id. The SDK's
// OpenHandsCloudWorkspace reads its LLM (get_llm, with `expose_secrets=true`) and MCP servers
// (get_mcp_config) here; the LLM key leaves in clear only on a server started with secret exposure,
// as X-Expose-Secrets: plaintext on /api/settings (403 otherwise).
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { SettingsService } from '../../../settings/index.js';
import { errorResponses } from '../../schemas.js';
import { exposeMode, exposureErrors } from '../settings-exposure.js';

export interface UserRoutesOptions {
  settings: SettingsService;
  /** Whether a caller may receive secrets in clear (--expose-secrets, AGENTD_EXPOSE_SECRETS). */
  exposeSecrets: boolean;
}

export const userRoutes: FastifyPluginAsync<UserRoutesOptions> = async (app, { settings, exposeSecrets }) => {
  app.get(
    '/api/v1/users/me',
    {
      schema: {
        tags: ['User'],
        summary: 'Get Current User',
        description:
          'The caller\'s settings (GET /api/settings\'s answer) with its user id; llm_api_key and search_api_key are "**********" when set.',
        querystring: Type.Object({
          expose_secrets: Type.Optional(
            Type.Boolean({
              description:
                'true: llm_api_key in clear, only on a server started with --expose-secrets (AGENTD_EXPOSE_SECRETS=1); 403 otherwise',
            }),
          ),
        }),
        response: {
          200: Type.Ref('UserInfo'),
          403: exposureErrors[403],
          409: exposureErrors[409],
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { expose_secrets } = request.query as { expose_secrets?: boolean };
      const mode = exposeMode(expose_secrets ? 'plaintext' : undefined, exposeSecrets);
      if (mode === 'plaintext') request.log.warn('user info read with secrets in clear (expose_secrets)');
      return settings.userInfo(request.userId, mode);
    },
  );
};
