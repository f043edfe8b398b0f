// /api/secrets: OpenHands' app-server routes for the custom secrets, which its web UI's Secrets settings
// page calls (frontend/src/api/secrets-service.ts). The same secrets as /api/settings/secrets
// (settings-secrets.ts), in the app server's shapes: a value goes in, never out. On the control plane
// only, as /api/options: OpenHands' agent server has no such routes. Errors keep agentd's {detail}.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  MAX_SETTINGS_STRING,
  SECRET_NAME_PATTERN,
  type SecretCreateRequest,
  type SettingsService,
} from '../../settings/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

const SecretName = () => Type.String({ pattern: SECRET_NAME_PATTERN, maxLength: 64 });

const SecretIdParams = Type.Object({
  secret_id: Type.String({ ...SecretName(), description: "The secret's name" }),
});

const CustomSecrets = Type.Object(
  { custom_secrets: Type.Array(Type.Ref('SecretItemResponse')) },
  { title: 'GETCustomSecrets', description: "The caller's custom secrets: names and descriptions only" },
);

const SecretChange = Type.Object(
  {
    name: SecretName(),
    description: Type.Optional(Type.Union([Type.String({ maxLength: MAX_SETTINGS_STRING }), Type.Null()])),
  },
  { title: 'CustomSecretWithoutValueModel' },
);

const Message = Type.Object({ message: Type.String() });

const notFound = { 404: detailResponse('No secret by that name') };
const taken = { 400: detailResponse('Another secret has that name') };

export const appSecretRoutes: FastifyPluginAsync<{ settings: SettingsService }> = async (
  app,
  { settings },
) => {
  app.get(
    '/api/secrets',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Load Custom Secrets Names',
        description: "OpenHands' app-server list of the caller's custom secrets (names and descriptions).",
        response: { 200: CustomSecrets, 401: errorResponses[401] },
      },
    },
    async (request) => ({ custom_secrets: await settings.listSecrets(request.userId) }),
  );

  app.post(
    '/api/secrets',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Create Custom Secret',
        description:
          'Creates one custom secret (sealed at rest); a name already taken is a 400, as in OpenHands.',
        body: Type.Ref('SecretCreateRequest'),
        response: { 201: Message, ...taken, ...errorResponses },
      },
    },
    async (request, reply) => {
      const secret = request.body as SecretCreateRequest;
      if (!(await settings.createSecret(request.userId, secret)))
        throw new HttpError(400, `Secret ${secret.name} already exists`);
      return reply.code(201).send({ message: 'Secret created successfully' });
    },
  );

  app.put(
    '/api/secrets/:secret_id',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Update Custom Secret',
        description: 'Renames a custom secret and sets its description; its value stays.',
        params: SecretIdParams,
        body: SecretChange,
        response: { 200: Message, ...taken, ...notFound, ...errorResponses },
      },
    },
    async (request) => {
      const { secret_id } = request.params as { secret_id: string };
      const change = request.body as { name: string; description?: string | null };
      const outcome = await settings.renameSecret(request.userId, secret_id, change);
      if (outcome === 'missing') throw new HttpError(404, `Secret with ID ${secret_id} not found`);
      if (outcome === 'taken') throw new HttpError(400, `Secret ${change.name} already exists`);
      return { message: 'Secret updated successfully' };
    },
  );

  app.delete(
    '/api/secrets/:secret_id',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Delete Custom Secret',
        params: SecretIdParams,
        response: { 200: Message, ...notFound, ...errorResponses },
      },
    },
    async (request) => {
      const { secret_id } = request.params as { secret_id: string };
      if (!(await settings.deleteSecret(request.userId, secret_id)))
        throw new HttpError(404, `Secret with ID ${secret_id} not found`);
      return { message: 'Secret deleted successfully' };
    },
  );
};
