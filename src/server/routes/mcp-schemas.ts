// The MCP server a client gives whole (OpenHands' MCPTestRequest, for /api/mcp/test and
// /api/mcp/oauth/start) and one saved by key (/api/settings/mcp/{key}): their wire shapes, and the
// server as agentd runs one.
import { type Static, Type } from 'typebox';
import { normalizeMcpServer, withAgentMcp } from '../../conversation/agent-mcp.js';
import { McpServerSpec } from '../../conversation/agent-schemas.js';
import { McpOAuthState, mapOAuthSecrets } from '../../tools/index.js';

/** The SDK's MCPServer as the settings hold one (`type` names its transport too; `timeout` in seconds). */
export const McpServer = Type.Object(
  {
    ...McpServerSpec.properties,
    type: Type.Optional(
      Type.Union(['stdio', 'http', 'shttp', 'streamable-http', 'sse'].map((t) => Type.Literal(t))),
    ),
    timeout: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 3600 }), Type.Null()])),
  },
  { additionalProperties: true },
);
export type McpServer = Static<typeof McpServer>;

/** OpenHands' MCPTestRequest. */
export const CandidateRequest = Type.Object(
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
export type CandidateRequest = Static<typeof CandidateRequest>;

export const CandidateResult = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    tools: Type.Array(Type.String()),
    tool_result: Type.Optional(Type.Object({ is_error: Type.Boolean(), text: Type.String() })),
    oauth_state: Type.Optional(McpOAuthState),
  }),
  Type.Object({
    ok: Type.Literal(false),
    error: Type.String(),
    error_kind: Type.Union([Type.Literal('timeout'), Type.Literal('connection'), Type.Literal('unknown')]),
  }),
]);

/** A server as agentd runs one: `type` is its transport when `transport` is not given; a 422 at `loc`. */
export function normalized(server: McpServer, loc: string[]) {
  const { type, timeout, ...spec } = server;
  const transport = spec.transport ?? (type === 'sse' || type === 'stdio' ? type : type && 'http');
  return {
    ...normalizeMcpServer({ ...spec, transport, enabled: true }, loc),
    ...(typeof timeout === 'number' ? { timeout } : {}),
  };
}

/**
 * A candidate server as the pool connects one, and as normalized (values in clear: an OAuth secret
 * sent back as agentd sealed it for the caller is opened by `openSent`).
 */
export function candidateServers(body: CandidateRequest, openSent: (value: string) => string) {
  const given = normalized(body.server, ['body', 'server']);
  const spec = given.oauth ? { ...given, oauth: mapOAuthSecrets(given.oauth, openSent) } : given;
  return { spec, config: withAgentMcp(null, { mcpServers: { [body.name?.trim() || 'test-server']: spec } }) };
}

/** The tool a test calls, if any. */
export const toolCallOf = (body: CandidateRequest) =>
  body.tool_call ? { name: body.tool_call.name, arguments: body.tool_call.arguments ?? {} } : undefined;
