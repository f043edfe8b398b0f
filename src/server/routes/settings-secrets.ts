// /api/settings/secrets: the caller's custom secrets, as OpenHands' agent server and its SDK
// (workspace.get_secrets, LookupSecret) use them. Stored in the same record as the settings
// (secrets_store.custom_secrets), sealed. Names and descriptions are listed; a value leaves only
// through GET /api/settings/secrets/{name}, and only on a server started with secret exposure.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { SECRET_NAME_PATTERN, type SecretCreateRequest, type SettingsService } from '../../settings/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';
import { EXPOSURE_DISABLED, exposureErrors } from './settings-exposure.js';

export interface SettingsSecretRoutesOptions {
  settings: SettingsService;
  exposeSecrets: boolean;
}

const NameParams = Type.Object({
  name: Type.String({ pattern: SECRET_NAME_PATTERN, maxLength: 64, description: 'The secret name' }),
});

const secretNotFound = { 404: detailResponse('No secret by that name') };

/** The secret-name parameter's schema, for the routes that read one secret. */
export const secretNameParam = NameParams.properties.name;

/** The responses of a route that answers a secret's value. */
export const secretValueResponses = {
  200: {
    description: 'The secret value',
    content: { 'text/plain': { schema: { type: 'string' } } },
  },
  ...secretNotFound,
  ...exposureErrors,
  ...errorResponses,
};

/**
 * Answers the value of `userId`'s secret `name` as text/plain: 403 on a server started without secret
 * exposure, 404 when there is no such secret. Every read is logged, by name.
 */
export async function sendSecretValue(
  settings: SettingsService,
  exposeSecrets: boolean,
  userId: string,
  name: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (!exposeSecrets) throw new HttpError(403, EXPOSURE_DISABLED);
  const value = await settings.secretValue(userId, name);
  if (value === null) throw new HttpError(404, 'Secret not found');
  request.log.info({ secret_name: name }, 'secret value read');
  return reply.type('text/plain; charset=utf-8').send(value);
}

export const settingsSecretRoutes: FastifyPluginAsync<SettingsSecretRoutesOptions> = async (
  app,
  { settings, exposeSecrets },
) => {
  app.get(
    '/api/settings/secrets',
    {
      schema: {
        tags: ['Settings'],
        summary: 'List Secrets',
        description: "Names and descriptions of the caller's custom secrets; never their values.",
        response: { 200: Type.Ref('SecretsListResponse'), 401: errorResponses[401] },
      },
    },
    async (request) => ({ secrets: await settings.listSecrets(request.userId) }),
  );

  app.put(
    '/api/settings/secrets',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Create Secret',
        description: 'Creates or replaces one custom secret (sealed at rest).',
        body: Type.Ref('SecretCreateRequest'),
        response: { 200: Type.Ref('SecretItemResponse'), ...errorResponses },
      },
    },
    async (request) => settings.putSecret(request.userId, request.body as SecretCreateRequest),
  );

  app.get(
    '/api/settings/secrets/:name',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Get Secret Value',
        description:
          "The secret's value as text/plain, for OpenHands' LookupSecret (which sends only the session key, so this route, whose one purpose is the value, needs no X-Expose-Secrets header). Only on a server started with secret exposure enabled (--expose-secrets, AGENTD_EXPOSE_SECRETS=1); else 403.",
        params: NameParams,
        response: secretValueResponses,
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      return sendSecretValue(settings, exposeSecrets, request.userId, name, request, reply);
    },
  );

  app.delete(
    '/api/settings/secrets/:name',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Delete Secret',
        params: NameParams,
        response: {
          200: Type.Object({ deleted: Type.Boolean() }),
          ...secretNotFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { name } = request.params as { name: string };
      if (!(await settings.deleteSecret(request.userId, name))) throw new HttpError(404, 'Secret not found');
      return { deleted: true };
    },
  );
};
