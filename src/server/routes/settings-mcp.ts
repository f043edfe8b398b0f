// Testing MCP servers before a conversation needs them. POST /api/settings/mcp/test (agentd's)
// connects to one of the caller's saved servers and lists its tools: it is named by kind and position,
// not sent, so it runs with the stored (sealed) keys, which never leave. POST /api/mcp/test
// (OpenHands') does the same for a server given whole, a candidate for "add a server" forms, and may
// call one tool of it to exercise credentials a listing does not. /api/settings/mcp/{settings_key}
// (OpenHands') adds, changes and removes one saved server by its key in the SDK's map.
import type { FastifyPluginAsync } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { withSettingsOAuthStores } from '../../conversation/agent-mcp.js';
import type { SettingsService } from '../../settings/index.js';
import {
  hasOAuthValues,
  McpTimeoutError,
  mapOAuthSecrets,
  probeMcpServer,
  testMcpServer,
} from '../../tools/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';
import {
  CandidateRequest,
  CandidateResult,
  candidateServers,
  McpServer,
  normalized,
  toolCallOf,
} from './mcp-schemas.js';

const TestRequest = Type.Object(
  {
    type: Type.Union([Type.Literal('stdio'), Type.Literal('sse'), Type.Literal('shttp')]),
    index: Type.Integer({ minimum: 0, maximum: 999 }),
  },
  { additionalProperties: false },
);

const TestResult = Type.Object({
  ok: Type.Boolean(),
  tools: Type.Optional(Type.Array(Type.String())),
  error: Type.Optional(Type.String()),
});

const KeyParams = Type.Object({
  settings_key: Type.String({
    minLength: 1,
    maxLength: 128,
    description: "The server's key in agent_settings.mcp_config",
  }),
});

export const settingsMcpRoutes: FastifyPluginAsync<{ settings: SettingsService }> = async (
  app,
  { settings },
) => {
  app.post(
    '/api/settings/mcp/test',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Test MCP Server',
        description:
          "agentd: connects to the saved MCP server of this kind and position (in the settings' mcp_config) and lists its tools. 200 with ok:false and the reason when it cannot connect.",
        body: TestRequest,
        response: { 200: TestResult, 404: detailResponse('No such saved server'), ...errorResponses },
      },
    },
    async (request) => {
      const { type, index } = request.body as { type: 'stdio' | 'sse' | 'shttp'; index: number };
      const effective = await settings.getEffective(request.userId);
      // A refresh during the test is kept, as a conversation's would be.
      const config = withSettingsOAuthStores(effective?.mcp_config, (url) =>
        settings.mcpOAuthStore(request.userId, url),
      );
      try {
        const tools = await probeMcpServer(config, type, index);
        if (tools === null) throw new HttpError(404, `No saved ${type} MCP server at position ${index}`);
        return { ok: true, tools };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        return { ok: false, error: (error as Error).message ?? String(error) };
      }
    },
  );

  const byKey = <R extends Record<number, TSchema>>(
    summary: string,
    description: string,
    body: TSchema | undefined,
    response: R,
  ) => ({
    schema: {
      tags: ['Settings'],
      summary,
      description,
      params: KeyParams,
      ...(body ? { body } : {}),
      response: { ...response, ...errorResponses },
    },
  });
  const view = Type.Ref('SettingsView');
  const notFound = (key: string) => new HttpError(404, `MCP server '${key}' was not found`);
  const keyOf = (request: { params: unknown }) => (request.params as { settings_key: string }).settings_key;

  app.post(
    '/api/settings/mcp/:settings_key',
    byKey(
      'Create MCP Server',
      "Saves one MCP server under this key, beside the others (a key already saved is a 409). Answers the settings, secrets redacted. The settings keep a command's args and env, or a URL with one bearer key (auth or an Authorization header) or an oauth2 auth (its authentication and state, e.g. the oauth_state of /api/mcp/oauth/status; tokens and client secrets sealed, a refreshed token written back here): anything else (a cwd, other headers) is a 422 — a start's agent.mcp_config takes those. The key `test` is taken by POST /api/settings/mcp/test.",
      McpServer,
      {
        201: view,
        409: detailResponse('A server is saved under this key, or a sealed value sent does not open'),
      },
    ),
    async (request, reply) => {
      const key = keyOf(request);
      const server = request.body as McpServer;
      const answer = await settings.changeMcpServer(request.userId, key, (current) => {
        if (current) throw new HttpError(409, `MCP server '${key}' already exists`);
        return normalized(server, ['body']);
      });
      return reply.code(201).send(answer);
    },
  );

  app.patch(
    '/api/settings/mcp/:settings_key',
    byKey(
      'Update MCP Server',
      'Changes the members given of the server saved under this key (null clears one; turning a url into a command, or back, keeps nothing of the old server); the others stay, its bearer key too unless auth is given (an oauth2 secret sent as `**********` keeps the stored one). Answers the settings, secrets redacted.',
      McpServer, // every member optional already: a patch names the ones it changes
      {
        200: view,
        404: detailResponse('No server is saved under this key'),
        409: detailResponse('A sealed value sent does not open with this server’s key'),
      },
    ),
    async (request) => {
      const key = keyOf(request);
      const patch = request.body as McpServer;
      return settings.changeMcpServer(request.userId, key, (current) => {
        if (!current) throw notFound(key);
        // A patch that turns a url into a command (or back) keeps nothing of the old server; one that
        // names a transport by `type` replaces the `transport` the current server shows.
        const kindChanged = (current.command && patch.url) || (current.url && patch.command);
        const base = kindChanged
          ? {}
          : patch.type !== undefined
            ? { ...current, transport: undefined }
            : current;
        return normalized({ ...base, ...patch } as McpServer, ['body']);
      });
    },
  );

  app.delete(
    '/api/settings/mcp/:settings_key',
    byKey(
      'Delete MCP Server',
      'Removes the server saved under this key; the others stay. Answers the settings.',
      undefined,
      {
        200: view,
        404: detailResponse('No server is saved under this key'),
      },
    ),
    async (request) => {
      const key = keyOf(request);
      return settings.changeMcpServer(request.userId, key, (current) => {
        if (!current) throw notFound(key);
        return null;
      });
    },
  );

  app.post(
    '/api/mcp/test',
    {
      schema: {
        tags: ['MCP'],
        summary: 'Test an MCP server configuration',
        description:
          "OpenHands': connects to the server given (nothing is saved), lists its tools and, with tool_call, calls that tool (choose a read-only one; its answer comes back verbatim in tool_result). 200 with ok:false, the reason and its kind (timeout, connection) when it cannot connect. A command runs on this server, as the terminal does. An oauth2 server is connected with its auth.state's token (refreshed when needed), and its state after the test comes back as oauth_state (secrets sealed for you); one without a usable token is ok:false: authorize it with /api/mcp/oauth/start.",
        body: CandidateRequest,
        response: {
          200: CandidateResult,
          409: detailResponse('A sealed value sent back does not open with this server’s key'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const body = request.body as CandidateRequest;
      const { config } = candidateServers(body, (v) => settings.openSealed(request.userId, v));
      try {
        const { tools, toolResult, oauthState } = await testMcpServer(
          config,
          (body.timeout ?? 15) * 1000,
          toolCallOf(body),
        );
        // An OAuth server's state after the test (refreshed, maybe), sealed for the caller to keep.
        const sealed =
          hasOAuthValues(oauthState) &&
          mapOAuthSecrets({ state: oauthState }, (v) => settings.sealFor(request.userId, v)).state;
        return {
          ok: true,
          tools,
          ...(toolResult ? { tool_result: toolResult } : {}),
          ...(sealed ? { oauth_state: sealed } : {}),
        };
      } catch (error) {
        const kind = error instanceof McpTimeoutError ? 'timeout' : 'connection';
        return { ok: false, error: (error as Error).message || String(error), error_kind: kind };
      }
    },
  );
};
