// /api/v1/sandboxes/{sandbox_id}/settings/secrets (OpenHands Cloud): a sandbox reads its owner's
// custom secrets with its own session key. The SDK's OpenHandsCloudWorkspace lists them
// (get_secrets) and hands the agent server LookupSecrets that point at the value route, with the
// sandbox's key as their header; the agent server fetches a value when a command needs it. Access
// 'sandbox' (server/auth.ts): only the key of that live sandbox, never a user's key. Values leave
// only on a server started with secret exposure, as from /api/settings/secrets/{name}.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { SettingsService } from '../../../settings/index.js';
import { errorResponses } from '../../schemas.js';
import { secretNameParam, secretValueResponses, sendSecretValue } from '../settings-secrets.js';

export interface SandboxSettingsRoutesOptions {
  settings: SettingsService;
  /** Whether a caller may receive secrets in clear (--expose-secrets, AGENTD_EXPOSE_SECRETS). */
  exposeSecrets: boolean;
}

const SandboxParams = { sandbox_id: Type.String({ minLength: 1, maxLength: 100 }) };
const config = { access: 'sandbox' as const };
const tags = ['Sandboxes'];

export const sandboxSettingsRoutes: FastifyPluginAsync<SandboxSettingsRoutesOptions> = async (
  app,
  { settings, exposeSecrets },
) => {
  app.get(
    '/api/v1/sandboxes/:sandbox_id/settings/secrets',
    {
      config,
      schema: {
        tags,
        summary: "List the Sandbox Owner's Secrets",
        description:
          "Names and descriptions of the custom secrets of the sandbox's owner, never their values. Authenticated by the sandbox's own session key (X-Session-API-Key), not a user's.",
        params: Type.Object(SandboxParams),
        response: { 200: Type.Ref('SecretsListResponse'), 401: errorResponses[401] },
      },
    },
    async (request) => ({ secrets: await settings.listSecrets(request.userId) }),
  );

  app.get(
    '/api/v1/sandboxes/:sandbox_id/settings/secrets/:name',
    {
      config,
      schema: {
        tags,
        summary: "Get a Sandbox Owner's Secret Value",
        description:
          "The value of a custom secret of the sandbox's owner, as text/plain, for the LookupSecrets the SDK's cloud workspace makes. Authenticated by the sandbox's own session key. Only on a server started with secret exposure enabled (--expose-secrets, AGENTD_EXPOSE_SECRETS=1); else 403.",
        params: Type.Object({ ...SandboxParams, name: secretNameParam }),
        response: secretValueResponses,
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return sendSecretValue(settings, exposeSecrets, request.userId, name, request, reply);
    },
  );
};
