// /api/settings: the caller's stored settings. POST is the seed's (the web UI's flat record); GET
// answers that record's flat members and the OpenHands SDK's SettingsResponse members together, and
// PATCH is the agent server's diff update. Secrets leave in clear only through `exposeSecrets`.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  AGENT_SETTINGS_FORM,
  CONVERSATION_SETTINGS_FORM,
  isEmptyUpdate,
  type Settings,
  SettingsFormSchema,
  type SettingsService,
  type SettingsUpdateRequest,
} from '../../settings/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';
import { ExposeHeaders, exposeMode, exposureErrors } from './settings-exposure.js';
import { settingsMcpRoutes } from './settings-mcp.js';
import { settingsSecretRoutes } from './settings-secrets.js';

export interface SettingsRoutesOptions {
  settings: SettingsService;
  /** Whether a caller may receive secrets in clear (--expose-secrets, AGENTD_EXPOSE_SECRETS); default off. */
  exposeSecrets?: boolean;
}

export const settingsRoutes: FastifyPluginAsync<SettingsRoutesOptions> = async (app, options) => {
  const { settings } = options;
  const exposeSecrets = options.exposeSecrets ?? false;

  app.get(
    '/api/settings',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Load Settings',
        description:
          'The stored settings, or the defaults before the first write (never 404): the web UI reads the flat members, the OpenHands SDK agent_settings, conversation_settings and llm_api_key_is_set.',
        headers: ExposeHeaders,
        response: {
          200: Type.Ref('SettingsView'),
          400: detailResponse('Invalid X-Expose-Secrets header value'),
          ...exposureErrors,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const mode = exposeMode(request.headers['x-expose-secrets'] as string | undefined, exposeSecrets);
      if (mode === 'plaintext') request.log.warn('settings read with secrets in clear (X-Expose-Secrets)');
      return settings.view(request.userId, mode);
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

  app.patch(
    '/api/settings',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Update Settings',
        description:
          "OpenHands' agent-server update: the diffs are merged into the same record POST writes. Answers the new settings, secrets redacted.",
        body: Type.Ref('SettingsUpdateRequest'),
        response: {
          200: Type.Ref('SettingsView'),
          400: detailResponse('Nothing to update'),
          404: detailResponse(
            'active_profile names no saved profile, or active_agent_profile_id no agent profile',
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const body = request.body as SettingsUpdateRequest;
      if (isEmptyUpdate(body)) {
        throw new HttpError(
          400,
          'At least one of agent_settings_diff, conversation_settings_diff, active_profile, or active_agent_profile_id must be provided',
        );
      }
      return settings.patch(request.userId, body);
    },
  );

  for (const [path, form, what] of [
    ['/api/settings/agent-schema', AGENT_SETTINGS_FORM, 'agent_settings'],
    ['/api/settings/conversation-schema', CONVERSATION_SETTINGS_FORM, 'conversation_settings'],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          tags: ['Settings'],
          summary: `Get ${form.model_name} Schema`,
          description: `The fields a form for ${what} may offer (OpenHands' SettingsSchema): the ones PATCH /api/settings stores, each a dotted key into ${what} with its label, type, default and prominence.`,
          response: { 200: SettingsFormSchema, ...errorResponses },
        },
      },
      async () => form,
    );
  }

  await app.register(settingsSecretRoutes, { settings, exposeSecrets });
  await app.register(settingsMcpRoutes, { settings });
};
