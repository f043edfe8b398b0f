// /api/vscode and /api/desktop: where an agent server's VS Code and desktop (noVNC) are. agentd runs
// neither, so these answer as OpenHands'
// agent server does when it has no VS Code to offer: no URL (`{url: null}`, what its vscode service
// returns when it cannot give one) and a status of not enabled, not running. On every agent server,
// a sandbox's included: the UI asks the server at the conversation's URL.
//
// Why `{url: null}` rather than the 503 OpenHands answers when VS Code is switched off in its config:
// the UI turns a null URL into its "VS Code is not available" message, while an error status raises
// its global error toast (frontend/src/query-client-config.ts) on whatever page asked.
import type { FastifyPluginAsync } from 'fastify';
import { type Static, Type } from 'typebox';
import { errorResponses } from '../schemas.js';

// Shape from frontend/src/api/conversation-service/v1-conversation-service.api.ts (getVSCodeUrl reads
// `data.url`, string or null) and OpenHands' agent server VSCodeUrlResponse.
export const VSCodeUrlResponse = Type.Object(
  { url: Type.Union([Type.String(), Type.Null()]) },
  { title: 'VSCodeUrlResponse' },
);

// OpenHands' agent server's answer to GET /api/vscode/status (`running`, `enabled`, and a `message`
// when it is not enabled); the UI does not read it.
export const VSCodeStatus = Type.Object(
  { running: Type.Boolean(), enabled: Type.Boolean(), message: Type.Optional(Type.String()) },
  { title: 'VSCodeStatus' },
);
type VSCodeStatus = Static<typeof VSCodeStatus>;

const NOT_AVAILABLE: VSCodeStatus = {
  running: false,
  enabled: false,
  message: 'VS Code is not available on this server',
};

export const vscodeRoutes: FastifyPluginAsync = async (app) => {
  const tags = ['VSCode'];
  app.get(
    '/api/vscode/url',
    {
      schema: {
        tags,
        summary: 'Get VSCode URL',
        description:
          "The URL of the VS Code served beside this agent server, with its token; always null here (agentd serves no VS Code). The query is accepted for OpenHands' clients and does not change the answer.",
        // OpenHands' parameters, accepted (bounded) so its clients get an answer, not a 422.
        querystring: Type.Object({
          base_url: Type.Optional(
            Type.String({ maxLength: 2048, description: 'Base URL of the VS Code server' }),
          ),
          workspace_dir: Type.Optional(
            Type.String({ maxLength: 4096, default: 'workspace', description: 'Folder to open' }),
          ),
        }),
        response: { 200: VSCodeUrlResponse, ...errorResponses },
      },
    },
    async () => ({ url: null }),
  );
  app.get(
    '/api/vscode/status',
    {
      schema: {
        tags,
        summary: 'Get VSCode Status',
        description: 'Whether a VS Code server is enabled and running here (never, in agentd).',
        response: { 200: VSCodeStatus, ...errorResponses },
      },
    },
    async () => NOT_AVAILABLE,
  );
  app.get(
    '/api/desktop/url',
    {
      schema: {
        tags: ['Desktop'],
        summary: 'Get Desktop URL',
        description:
          "The noVNC URL of the desktop beside this agent server; always null here (agentd runs no desktop: the browser tool's screenshots show its pages). The query is accepted for OpenHands' clients.",
        querystring: Type.Object({
          base_url: Type.Optional(
            Type.String({ maxLength: 2048, description: 'Base URL of the noVNC server' }),
          ),
        }),
        response: {
          200: Type.Object({ url: Type.Null() }, { title: 'DesktopUrlResponse' }),
          ...errorResponses,
        },
      },
    },
    async () => ({ url: null }),
  );
};
