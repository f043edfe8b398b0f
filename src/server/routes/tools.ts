// GET /api/tools/: the names of the registered tools (OpenHands keeps the trailing slash).
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../schemas.js';

export const toolRoutes: FastifyPluginAsync<{ toolNames: readonly string[] }> = async (
  app,
  { toolNames },
) => {
  app.get(
    '/api/tools/',
    {
      schema: {
        tags: ['Tools'],
        summary: 'List Available Tools',
        response: { 200: Type.Array(Type.String()), ...errorResponses },
      },
    },
    async () => [...toolNames],
  );
};
