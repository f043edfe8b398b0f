// The settings' MCP servers by name, as the OpenHands SDK sees them (`agent_settings.mcp_config`) and
// writes them one at a time (/api/settings/mcp/{settings_key}). The settings keep the web UI's three
// lists; a stdio server is keyed by its name, a remote one by its `name` when it has one, else by kind
// and position (`sse_<n>`, `shttp_<n>`, 1-based). A remote server written by key gets that key as its
// name, so it keeps it when others come and go.
import type { McpOAuth } from '../tools/index.js';
import { mergeOAuth } from './merge.js';
import { InvalidSettingsError } from './parse.js';
import type { MCPConfig } from './schemas.js';
import { REDACTED } from './sdk-schemas.js';

type ListName = 'sse_servers' | 'shttp_servers' | 'stdio_servers';
interface Slot {
  list: ListName;
  index: number;
}
type RemoteServer = NonNullable<MCPConfig['shttp_servers']>[number];
type StdioServer = NonNullable<MCPConfig['stdio_servers']>[number];

/**
 * A server as agentd runs one (what conversation/agent-mcp.ts normalizes the SDK's MCPServer to), its
 * values in clear or sealed: a command to run (stdio), or a URL (SSE or streamable HTTP).
 */
export interface McpServerInput {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  transport?: 'sse' | 'http';
  headers?: Record<string, string>;
  /** Its OAuth credential (the SDK's `auth` of strategy oauth2): what to register, what was granted. */
  oauth?: McpOAuth;
  /** Seconds a streamable-HTTP server may take to answer. */
  timeout?: number;
}

/** Every server's key and place, in the map's order (a later server of the same key hides an earlier one). */
function slots(config: MCPConfig | null): [string, Slot][] {
  const out: [string, Slot][] = [];
  (config?.sse_servers ?? []).forEach((s, index) => {
    out.push([s.name ?? `sse_${index + 1}`, { list: 'sse_servers', index }]);
  });
  (config?.shttp_servers ?? []).forEach((s, index) => {
    out.push([s.name ?? `shttp_${index + 1}`, { list: 'shttp_servers', index }]);
  });
  (config?.stdio_servers ?? []).forEach((s, index) => {
    out.push([s.name, { list: 'stdio_servers', index }]);
  });
  return out;
}

const slotOf = (config: MCPConfig | null, key: string) =>
  slots(config).findLast(([k]) => k === key)?.[1] ?? null;

/**
 * A settings server as the SDK's map shows it: its api_key as a bearer credential (how agentd sends
 * it), its oauth as the oauth2 credential.
 */
function sdkServer(config: MCPConfig, { list, index }: Slot): Record<string, unknown> {
  if (list === 'stdio_servers') {
    const s = config.stdio_servers?.[index] as StdioServer;
    return { command: s.command, args: s.args ?? [], env: s.env ?? {}, transport: 'stdio' };
  }
  const s = config[list]?.[index] as RemoteServer;
  return {
    url: s.url,
    transport: list === 'sse_servers' ? 'sse' : 'streamable-http',
    ...(s.timeout ? { timeout: s.timeout } : {}),
    ...(s.api_key ? { auth: { strategy: 'bearer', value: s.api_key } } : {}),
    ...(s.oauth ? { auth: { strategy: 'oauth2', ...s.oauth } } : {}),
  };
}

/** The whole map (GET /api/settings' agent_settings.mcp_config). */
export function mcpServersByName(config: MCPConfig | null): Record<string, Record<string, unknown>> {
  // Object.fromEntries: a server named `__proto__` stays a plain member.
  return Object.fromEntries(slots(config).map(([key, slot]) => [key, sdkServer(config as MCPConfig, slot)]));
}

/** The server of that key as the map shows it, or null. */
export function mcpServerOf(config: MCPConfig | null, key: string): Record<string, unknown> | null {
  const slot = slotOf(config, key);
  return slot && sdkServer(config as MCPConfig, slot);
}

/**
 * The config with the server of `key` set to `server`: in its place when it stays in the same list,
 * else appended to its new one. Its bearer key and OAuth secrets are sealed by `seal`; `**********`
 * keeps the stored one.
 * An InvalidSettingsError (at `loc`) for what the settings cannot keep: a cwd, or headers other than
 * one bearer Authorization (a start's agent.mcp_config takes those).
 */
export function withMcpServer(
  config: MCPConfig,
  key: string,
  server: McpServerInput,
  seal: (value: string) => string,
  loc: string[],
): MCPConfig {
  const fail = (member: string, msg: string): never => {
    throw new InvalidSettingsError([{ loc: [...loc, member], msg, type: 'value_error' }]);
  };
  const slot = slotOf(config, key);
  let list: ListName;
  let entry: RemoteServer | StdioServer;
  if (server.command) {
    if (server.cwd)
      fail('cwd', "The settings keep no working folder for a server; a start's agent.mcp_config does");
    list = 'stdio_servers';
    entry = { name: key, command: server.command, args: server.args ?? [], env: server.env ?? {} };
  } else {
    list = server.transport === 'sse' ? 'sse_servers' : 'shttp_servers';
    const { Authorization: authorization, ...others } = server.headers ?? {};
    if (Object.keys(others).length > 0 || (authorization && !/^Bearer /.test(authorization)))
      fail(
        'headers',
        "The settings keep one bearer key for a server; a start's agent.mcp_config takes any headers",
      );
    const bearer = authorization?.slice('Bearer '.length);
    const before = slot && slot.list !== 'stdio_servers' ? config[slot.list]?.[slot.index] : null;
    const apiKey = bearer === REDACTED ? before?.api_key : bearer ? seal(bearer) : null;
    const oauth = server.oauth && mergeOAuth(before?.oauth ?? null, server.oauth, seal);
    entry = {
      name: key,
      url: server.url as string,
      ...(apiKey ? { api_key: apiKey } : {}),
      ...(oauth ? { oauth } : {}),
    };
    if (list === 'shttp_servers' && server.timeout) entry = { ...entry, timeout: Math.ceil(server.timeout) };
  }
  if (slot && slot.list === list) {
    const kept = [...((config[list] ?? []) as (RemoteServer | StdioServer)[])];
    kept[slot.index] = entry;
    return { ...config, [list]: kept };
  }
  const without = withoutMcpServer(config, key);
  return { ...without, [list]: [...((without[list] ?? []) as (RemoteServer | StdioServer)[]), entry] };
}

/** The config without the server of `key` (the one the map shows; unchanged when none). */
export function withoutMcpServer(config: MCPConfig, key: string): MCPConfig {
  const slot = slotOf(config, key);
  if (!slot) return config;
  return { ...config, [slot.list]: (config[slot.list] ?? []).filter((_, i) => i !== slot.index) };
}

/** The config with only the servers of these keys (the ones the map shows); a key not there adds nothing. */
export function mcpConfigOnly(config: MCPConfig | null, keys: readonly string[]): MCPConfig {
  const kept = new Set<string>();
  for (const key of keys) {
    const slot = slotOf(config, key);
    if (slot) kept.add(`${slot.list}:${slot.index}`);
  }
  const only = <L extends ListName>(list: L) =>
    ((config?.[list] ?? []) as NonNullable<MCPConfig[L]>).filter((_, i) => kept.has(`${list}:${i}`));
  return {
    ...config,
    sse_servers: only('sse_servers'),
    shttp_servers: only('shttp_servers'),
    stdio_servers: only('stdio_servers'),
  } as MCPConfig;
}
