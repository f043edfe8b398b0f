// POST /api/hooks (OpenHands'): the hooks a project keeps in `<project_dir>/.openhands/hooks.json`, in
// the form a start's `hook_config` takes, so a client can pass them on (OpenHands' app server asks a
// sandbox's agent server this before it starts a conversation there). None when the file is missing,
// empty or not a hook configuration (the reason is logged), as OpenHands.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { HookConfigError, isEmptyHookConfig, loadHookFile } from '../../hooks/index.js';
import { errorResponses } from '../schemas.js';

const HooksRequest = Type.Object(
  {
    project_dir: Type.Optional(
      Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], {
        description: 'The workspace whose .openhands/hooks.json is read',
      }),
    ),
  },
  { additionalProperties: true },
);

export const hookRoutes: FastifyPluginAsync = async (app) => {
  app.post(
    '/api/hooks',
    {
      schema: {
        tags: ['Hooks'],
        summary: 'Get Hooks',
        description:
          "The project's hooks (`<project_dir>/.openhands/hooks.json`), normalized (snake_case events); null when there are none or the file is not a hook configuration.",
        body: HooksRequest,
        response: {
          200: Type.Object({ hook_config: Type.Union([Type.Ref('HookConfig'), Type.Null()]) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const dir = (request.body as { project_dir?: string | null }).project_dir;
      if (!dir) return { hook_config: null };
      const path = join(dir, '.openhands', 'hooks.json');
      // The common case, no file, is no hooks and nothing to say.
      if (!existsSync(path)) return { hook_config: null };
      try {
        const config = loadHookFile(path);
        return { hook_config: isEmptyHookConfig(config) ? null : config };
      } catch (error) {
        if (!(error instanceof HookConfigError)) throw error;
        request.log.warn({ path, reason: error.message }, 'hooks.json ignored');
        return { hook_config: null };
      }
    },
  );
};
