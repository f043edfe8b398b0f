// Testing MCP servers before a conversation needs them. POST /api/settings/mcp/test (agentd's)
// connects to one of the caller's saved servers and lists its tools: it is named by kind and position,
// not sent, so it runs with the stored (sealed) keys, which never leave. POST /api/mcp/test
// (OpenHands') does the same for a server given whole, a candidate for "add a server" forms, and may
// call one tool of it to exercise credentials a listing does not. /api/settings/mcp/{settings_key}
// (OpenHands') adds, changes and removes one saved server by its key in the SDK's map.
import type { FastifyPluginAsync } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { normalizeMcpServer, withAgentMcp } from '../../conversation/agent-mcp.js';
import { McpServerSpec } from '../../conversation/agent-schemas.js';
import type { SettingsService } from '../../settings/index.js';
import { McpTimeoutError, probeMcpServer, testMcpServer } from '../../tools/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

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

/** The SDK's MCPServer as the settings hold one (`type` names its transport too; `timeout` in seconds). */
const McpServer = Type.Object(
  {
    ...McpServerSpec.properties,
    type: Type.Optional(
      Type.Union(['stdio', 'http', 'shttp', 'streamable-http', 'sse'].map((t) => Type.Literal(t))),
    ),
    timeout: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 3600 }), Type.Null()])),
  },
  { additionalProperties: true },
);
type McpServer = Static<typeof McpServer>;

/** OpenHands' MCPTestRequest. */
const CandidateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    server: McpServer,
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 15 })),
    tool_call: Type.Optional(
      Type.Union([
        Type.Object({
          name: Type.String({ minLength: 1, maxLength: 256 }),
          arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: true },
);
type CandidateRequest = Static<typeof CandidateRequest>;

const CandidateResult = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    tools: Type.Array(Type.String()),
    tool_result: Type.Optional(Type.Object({ is_error: Type.Boolean(), text: Type.String() })),
  }),
  Type.Object({
    ok: Type.Literal(false),
    error: Type.String(),
    error_kind: Type.Union([Type.Literal('timeout'), Type.Literal('connection'), Type.Literal('unknown')]),
  }),
]);

/** A server as agentd runs one: `type` is its transport when `transport` is not given; a 422 at `loc`. */
function normalized(server: McpServer, loc: string[]) {
  const { type, timeout, ...spec } = server;
  const transport = spec.transport ?? (type === 'sse' || type === 'stdio' ? type : type && 'http');
  return {
    ...normalizeMcpServer({ ...spec, transport, enabled: true }, loc),
    ...(typeof timeout === 'number' ? { timeout } : {}),
  };
}

/** A candidate server as the pool connects one. */
function candidateServers(body: CandidateRequest) {
  const spec = normalized(body.server, ['body', 'server']);
  return withAgentMcp(null, { mcpServers: { [body.name?.trim() || 'test-server']: spec } });
}

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
      try {
        const tools = await probeMcpServer(effective?.mcp_config, type, index);
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
      "Saves one MCP server under this key, beside the others (a key already saved is a 409). Answers the settings, secrets redacted. The settings keep a command's args and env, or a URL with one bearer key (auth or an Authorization header): anything else (a cwd, other headers) is a 422 — a start's agent.mcp_config takes those. The key `test` is taken by POST /api/settings/mcp/test.",
      McpServer,
      { 201: view, 409: detailResponse('A server is saved under this key') },
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
      'Changes the members given of the server saved under this key (null clears one; turning a url into a command, or back, keeps nothing of the old server); the others stay, its bearer key too unless auth is given. Answers the settings, secrets redacted.',
      McpServer, // every member optional already: a patch names the ones it changes
      { 200: view, 404: detailResponse('No server is saved under this key') },
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
          "OpenHands': connects to the server given (nothing is saved), lists its tools and, with tool_call, calls that tool (choose a read-only one; its answer comes back verbatim in tool_result). 200 with ok:false, the reason and its kind (timeout, connection) when it cannot connect. A command runs on this server, as the terminal does.",
        body: CandidateRequest,
        response: { 200: CandidateResult, ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body as CandidateRequest;
      const servers = candidateServers(body);
      const call = body.tool_call
        ? { name: body.tool_call.name, arguments: body.tool_call.arguments ?? {} }
        : undefined;
      try {
        const { tools, toolResult } = await testMcpServer(servers, (body.timeout ?? 15) * 1000, call);
        return { ok: true, tools, ...(toolResult ? { tool_result: toolResult } : {}) };
      } catch (error) {
        const kind = error instanceof McpTimeoutError ? 'timeout' : 'connection';
        return { ok: false, error: (error as Error).message || String(error), error_kind: kind };
      }
    },
  );
};
