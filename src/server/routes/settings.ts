// GET and POST /api/settings: the caller's stored settings, secrets never returned.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Settings, SettingsService } from '../../settings/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

export interface SettingsRoutesOptions {
  settings: SettingsService;
}

export const settingsRoutes: FastifyPluginAsync<SettingsRoutesOptions> = async (app, { settings }) => {
  app.get(
    '/api/settings',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Load Settings',
        response: {
          200: Type.Ref('GETSettingsResponse'),
          404: detailResponse('No settings stored yet'),
          401: errorResponses[401],
        },
      },
    },
    async (request) => {
      const stored = await settings.get(request.userId);
      if (!stored) throw new HttpError(404, 'Settings not found');
      return stored;
    },
  );

  app.post(
    '/api/settings',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Store Settings',
        body: Type.Ref('Settings'),
        response: { 200: Type.Ref('SettingsStoredResponse'), ...errorResponses },
      },
    },
    async (request) => {
      await settings.store(request.userId, request.body as Settings);
      return { message: 'Settings stored' };
    },
  );
};
