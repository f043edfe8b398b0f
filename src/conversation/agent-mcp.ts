// The MCP servers a start request gives its agent (the SDK's `Agent(mcp_config={"mcpServers": …})`,
// which RemoteConversation sends as `agent.mcp_config`), connected beside the user's settings' servers.
// Their env and header values may be credentials: sealed in the stored state like the LLM key, masked
// in what clients read, opened only to connect.
import type { McpServers } from '../tools/index.js';
import { InvalidConversationRequestError } from './errors.js';

/** One server of `mcpServers`: a command to run (stdio), or a URL (SSE or streamable HTTP). */
export interface AgentMcpServer {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  transport?: 'stdio' | 'sse' | 'http' | 'streamable-http';
  headers?: Record<string, string>;
}

export interface AgentMcpConfig {
  mcpServers?: Record<string, AgentMcpServer>;
}

const LOC = ['body', 'agent', 'mcp_config', 'mcpServers'];

/** A 422 naming the server when one is neither a command nor an http(s) URL, or says another transport. */
export function checkAgentMcp(config: AgentMcpConfig | null | undefined): void {
  for (const [name, server] of Object.entries(config?.mcpServers ?? {})) {
    const fail = (message: string) => {
      throw new InvalidConversationRequestError([...LOC, name], message);
    };
    if (!server.command === !server.url) fail('An MCP server has either a command or a url');
    if (server.command && server.transport && server.transport !== 'stdio')
      fail(`A command runs over stdio, not ${server.transport}`);
    if (server.url) {
      if (server.transport === 'stdio') fail('A url is reached over sse or streamable-http, not stdio');
      if (!/^https?:\/\//i.test(server.url) || !URL.canParse(server.url)) fail('The url must be http(s)');
    }
  }
}

/** The config with every env and header value passed through `f` (seal, mask or open). */
export function mapMcpValues(config: AgentMcpConfig, f: (value: string) => string): AgentMcpConfig {
  if (!config.mcpServers) return config;
  const each = (values: Record<string, string> | undefined) =>
    values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, f(v)]));
  const servers = Object.entries(config.mcpServers ?? {}).map(([name, s]) => {
    const mapped: AgentMcpServer = { ...s };
    if (s.env) mapped.env = each(s.env);
    if (s.headers) mapped.headers = each(s.headers);
    return [name, mapped] as const;
  });
  return { ...config, mcpServers: Object.fromEntries(servers) };
}

/**
 * The agent's servers (values in clear) added to the settings' lists. A URL's transport is the one
 * given, else SSE for a path ending in /sse and streamable HTTP otherwise (FastMCP's rule, which the
 * SDK uses).
 */
export function withAgentMcp(settings: McpServers | null | undefined, agent: AgentMcpConfig): McpServers {
  const merged = {
    stdio_servers: [...(settings?.stdio_servers ?? [])],
    sse_servers: [...(settings?.sse_servers ?? [])],
    shttp_servers: [...(settings?.shttp_servers ?? [])],
  };
  for (const [name, s] of Object.entries(agent.mcpServers ?? {})) {
    if (s.command) {
      merged.stdio_servers.push({ name, command: s.command, args: s.args ?? [], env: s.env ?? {} });
      continue;
    }
    const url = s.url!;
    const remote = { name, url, headers: s.headers ?? {} };
    const sse = s.transport
      ? s.transport === 'sse'
      : new URL(url).pathname.replace(/\/$/, '').endsWith('/sse');
    (sse ? merged.sse_servers : merged.shttp_servers).push(remote);
  }
  return merged;
}
