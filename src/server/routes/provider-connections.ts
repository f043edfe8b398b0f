// /api/llm/provider-connections (OpenHands'): API keys and base URLs the caller's LLM profiles share
// by id (a profile's `provider_connection_id`); read when a linked profile is used or activated, so a
// rotated key reaches every linked profile from then on. The key is never answered, only whether set.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  ConnectionCreateRequest,
  ConnectionResponse,
  ConnectionUpdateRequest,
  MAX_CONNECTIONS,
  type SettingsService,
} from '../../settings/index.js';
import { detailResponse, errorResponses } from '../schemas.js';

const IdParams = Type.Object({ connection_id: Type.String({ minLength: 1, maxLength: 128 }) });
const notFound = detailResponse('No provider connection of that id');

export const providerConnectionRoutes: FastifyPluginAsync<{ settings: SettingsService }> = async (
  app,
  { settings },
) => {
  const tags = ['LLM Provider Connections'];
  const idOf = (request: { params: unknown }) => (request.params as { connection_id: string }).connection_id;

  app.get(
    '/api/llm/provider-connections',
    {
      schema: {
        tags,
        summary: 'List Provider Connections',
        response: { 200: Type.Array(ConnectionResponse), ...errorResponses },
      },
    },
    async (request) => settings.listConnections(request.userId),
  );
  app.post(
    '/api/llm/provider-connections',
    {
      schema: {
        tags,
        summary: 'Create Provider Connection',
        description: `A key (sealed at rest) and optional base URL, for LLM profiles to name by id; ${MAX_CONNECTIONS} at most (409).`,
        body: ConnectionCreateRequest,
        response: {
          201: ConnectionResponse,
          409: detailResponse(`${MAX_CONNECTIONS} connections already`),
          ...errorResponses,
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await settings.createConnection(request.userId, request.body as ConnectionCreateRequest)),
  );
  app.patch(
    '/api/llm/provider-connections/:connection_id',
    {
      schema: {
        tags,
        summary: 'Update Provider Connection',
        description:
          'Changes the members given: a new key rotates it for every linked profile from its next use; a key cannot be cleared (422), `**********` keeps it; base_url null clears it.',
        params: IdParams,
        body: ConnectionUpdateRequest,
        response: { 200: ConnectionResponse, 404: notFound, ...errorResponses },
      },
    },
    async (request) =>
      settings.updateConnection(request.userId, idOf(request), request.body as ConnectionUpdateRequest),
  );
  app.delete(
    '/api/llm/provider-connections/:connection_id',
    {
      schema: {
        tags,
        summary: 'Delete Provider Connection',
        description: 'Deletes it and answers it (api_key_set false); 409 while LLM profiles name it.',
        params: IdParams,
        response: {
          200: ConnectionResponse,
          404: notFound,
          409: detailResponse('LLM profiles still name it'),
          ...errorResponses,
        },
      },
    },
    async (request) => settings.deleteConnection(request.userId, idOf(request)),
  );
};
