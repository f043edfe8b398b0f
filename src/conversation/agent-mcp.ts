// The MCP servers a start request gives its agent (the SDK's `Agent(mcp_config=…)`, which
// RemoteConversation sends as `agent.mcp_config`), connected beside the user's settings' servers.
// The SDK has sent two shapes: `{"mcpServers": {name: server}}` (FastMCP's, older SDKs) and
// `{name: server}` (newer ones, every member present, null when unset, with `auth` and `enabled`).
// A start stores one: `{"mcpServers": …}`, auth turned into headers (OAuth kept as `oauth`, its
// authentication and state), disabled servers left out. Env and header values and OAuth's tokens
// and client secrets are credentials: sealed in the stored state like the LLM key, masked in what
// clients read, opened only to connect.
import type { McpServerInput } from '../settings/index.js';
import {
  keptOAuth,
  type McpServers,
  mapOAuthSecrets,
  OAUTH_SECRETS,
  type OAuthStateStore,
} from '../tools/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { McpServerSpec } from './schemas.js';

/** One server as stored: a command to run (stdio), or a URL (SSE or streamable HTTP). */
export type AgentMcpServer = Omit<McpServerInput, 'timeout'>;

export interface AgentMcpConfig {
  mcpServers?: Record<string, AgentMcpServer>;
}

const LOC = ['body', 'agent', 'mcp_config'];

/** Present values only (the SDK sends null for a secret it has not). */
const present = (values: Record<string, string | null> | null | undefined) =>
  Object.fromEntries(
    Object.entries(values ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );

/** The headers a server's `auth` stands for (the SDK's to_http_headers); none for OAuth (its grant's). */
function authHeaders(auth: McpServerSpec['auth'], loc: (string | number)[]): Record<string, string> {
  if (!auth) return {};
  switch (auth.strategy) {
    case 'none':
      return {};
    case 'bearer':
      return auth.value ? { Authorization: `Bearer ${auth.value}` } : {};
    case 'api_key':
      if (!auth.value) return {};
      return auth.header_name
        ? { [auth.header_name]: auth.value }
        : { Authorization: `Bearer ${auth.value}` };
    case 'basic':
      if (auth.password == null) return {};
      return {
        Authorization: `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password}`).toString('base64')}`,
      };
    case 'header':
      return present(auth.headers);
    case 'oauth2':
      return {};
    default:
      throw new InvalidConversationRequestError(
        [...loc, 'auth'],
        `MCP auth strategy ${JSON.stringify(auth.strategy)} is not supported by agentd (none, bearer, api_key, basic, header, oauth2)`,
      );
  }
}

/**
 * The config a start stores (values still in clear), from either shape the SDK sends; a 422 naming the
 * server when one is neither a command nor an http(s) URL, or asks for something agentd cannot do.
 */
export function normalizeAgentMcp(sent: Record<string, unknown> | null | undefined): AgentMcpConfig | null {
  if (!sent) return null;
  const entries: [string, McpServerSpec, string[]][] = [];
  for (const [key, value] of Object.entries(sent)) {
    if (key === 'mcpServers')
      for (const [name, server] of Object.entries((value ?? {}) as Record<string, McpServerSpec>))
        entries.push([name, server, [...LOC, 'mcpServers', name]]);
    else entries.push([key, value as McpServerSpec, [...LOC, key]]);
  }
  const servers: Record<string, AgentMcpServer> = {};
  for (const [name, s, loc] of entries) if (s.enabled !== false) servers[name] = normalizeMcpServer(s, loc);
  return Object.keys(servers).length > 0 ? { mcpServers: servers } : null;
}

/**
 * One server as stored (values in clear): a command, or an http(s) URL with its auth turned into
 * headers; a 422 at `loc` when it is neither, or asks for something agentd cannot do.
 */
export function normalizeMcpServer(s: McpServerSpec, loc: (string | number)[]): AgentMcpServer {
  const fail = (message: string): never => {
    throw new InvalidConversationRequestError(loc, message);
  };
  if (!s.command === !s.url) fail('An MCP server has either a command or a url');
  if (s.command) {
    if (s.transport && s.transport !== 'stdio') fail(`A command runs over stdio, not ${s.transport}`);
    if (s.auth) fail('auth is for a server reached by url');
    return {
      command: s.command,
      ...(s.args ? { args: s.args } : {}),
      ...(s.env ? { env: present(s.env) } : {}),
      ...(s.cwd ? { cwd: s.cwd } : {}),
    };
  }
  const url = s.url!;
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) fail('The url must be http(s)');
  if (s.transport === 'stdio') fail('A url is reached over sse or streamable-http, not stdio');
  const headers = { ...present(s.headers), ...authHeaders(s.auth, loc) };
  const oauth = s.auth?.strategy === 'oauth2' ? keptOAuth(s.auth) : null;
  // As the SDK: a credential and an Authorization header of one's own would contradict each other.
  if (oauth && Object.keys(headers).some((h) => h.toLowerCase() === 'authorization'))
    fail("auth cannot be combined with an Authorization header; use auth.strategy 'header' instead");
  return {
    url,
    ...(s.transport ? { transport: s.transport === 'sse' ? 'sse' : 'http' } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(oauth ? { oauth } : {}),
  };
}

/** The agent's servers as its start stored them (normalizeAgentMcp, values sealed); null: none. */
export function storedAgentMcp(agent: { mcp_config?: unknown }): AgentMcpConfig | null {
  const config = agent.mcp_config as AgentMcpConfig | null | undefined;
  return config?.mcpServers ? config : null;
}

/** The last member of each OAuth secret's path: masked wherever it sits under `auth` or `oauth`. */
const OAUTH_SECRET_NAMES = new Set<string>(OAUTH_SECRETS.map((path) => path[path.length - 1]!));

/**
 * The config as clients see it: every env, header and auth value masked, OAuth's tokens and client
 * secrets too, whatever its shape (a conversation stored before the start normalized it kept the SDK's).
 */
export function maskedMcp(config: unknown, mask: string): unknown {
  const maskAll = (values: unknown) =>
    values && typeof values === 'object'
      ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? mask : v]))
      : values;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === 'env' || k === 'headers') return [k, maskAll(v)];
        if (k === 'auth' && v && typeof v === 'object') {
          const auth = maskOAuth(v as Record<string, unknown>) as Record<string, unknown>;
          for (const secret of ['value', 'password'])
            if (typeof auth[secret] === 'string') auth[secret] = mask;
          if (auth.headers) auth.headers = maskAll(auth.headers);
          return [k, auth];
        }
        if (k === 'oauth' && v && typeof v === 'object') return [k, maskOAuth(v)];
        return [k, walk(v)];
      }),
    );
  };
  // Every token or client secret below: the SDK's shape keeps extra members OpenHands may add.
  const maskOAuth = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(maskOAuth);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        OAUTH_SECRET_NAMES.has(k) && typeof v === 'string' ? mask : maskOAuth(v),
      ]),
    );
  };
  return walk(config);
}

/**
 * The config with every env and header value passed through `f` (seal, mask or open), and every
 * OAuth token and client secret through `oauth` (by default `f`).
 */
export function mapMcpValues(
  config: AgentMcpConfig,
  f: (value: string) => string,
  oauth: (value: string) => string = f,
): AgentMcpConfig {
  if (!config.mcpServers) return config;
  const each = (values: Record<string, string> | undefined) =>
    values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, f(v)]));
  const servers = Object.entries(config.mcpServers).map(([name, s]) => {
    const mapped: AgentMcpServer = { ...s };
    if (s.env) mapped.env = each(s.env);
    if (s.headers) mapped.headers = each(s.headers);
    if (s.oauth) mapped.oauth = mapOAuthSecrets(s.oauth, oauth);
    return [name, mapped] as const;
  });
  return { ...config, mcpServers: Object.fromEntries(servers) };
}

/**
 * The agent's servers (values in clear) added to the settings' lists. A URL's transport is the one
 * given, else SSE for a path ending in /sse and streamable HTTP otherwise (FastMCP's rule, which the
 * SDK uses). An OAuth server's state is kept where `store` says (by the server's name).
 */
export function withAgentMcp(
  settings: McpServers | null | undefined,
  agent: AgentMcpConfig,
  store?: (name: string) => OAuthStateStore,
): McpServers {
  const merged = {
    stdio_servers: [...(settings?.stdio_servers ?? [])],
    sse_servers: [...(settings?.sse_servers ?? [])],
    shttp_servers: [...(settings?.shttp_servers ?? [])],
  };
  for (const [name, s] of Object.entries(agent.mcpServers ?? {})) {
    if (s.command) {
      merged.stdio_servers.push({
        name,
        command: s.command,
        args: s.args ?? [],
        env: s.env ?? {},
        cwd: s.cwd,
      });
      continue;
    }
    const url = s.url!;
    const oauth = s.oauth ? { oauth: { ...s.oauth, store: store?.(name) ?? null } } : {};
    const remote = { name, url, headers: s.headers ?? {}, ...oauth };
    const sse = s.transport
      ? s.transport === 'sse'
      : new URL(url).pathname.replace(/\/$/, '').endsWith('/sse');
    (sse ? merged.sse_servers : merged.shttp_servers).push(remote);
  }
  return merged;
}

/** The settings' servers, each OAuth one with the store its refreshed state goes back to (by its url). */
export function withSettingsOAuthStores(
  settings: McpServers | null | undefined,
  store: (url: string) => OAuthStateStore,
): McpServers | null | undefined {
  if (!settings) return settings;
  type Remote = NonNullable<McpServers['sse_servers']>[number];
  const stored = <S extends Remote>(s: S): S =>
    s.oauth ? { ...s, oauth: { ...s.oauth, store: store(s.url) } } : s;
  return {
    ...settings,
    sse_servers: settings.sse_servers?.map(stored) ?? null,
    shttp_servers: settings.shttp_servers?.map(stored) ?? null,
  };
}
