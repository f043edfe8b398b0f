// The web search a user's `search_api_key` gives their agent: Tavily's MCP server, with the key as its
// bearer credential, connected beside the user's own MCP servers (OpenHands gives its agent Tavily's
// search from the same setting). The server's address is the server's configuration
// (AGENTD_SEARCH_MCP_URL), not the user's: the key goes only where the operator says.
import type { MCPConfig } from './schemas.js';

/** Tavily's hosted MCP server (streamable HTTP; `Authorization: Bearer <key>`). */
export const TAVILY_MCP_URL = 'https://mcp.tavily.com/mcp/';

/** What the search server is called in the agent's notes when it cannot be reached. */
const SEARCH_SERVER_NAME = 'tavily';

/** The same endpoint, whatever the query (a key in `?tavilyApiKey=`) or a trailing slash. */
const endpoint = (url: string) => {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
};

/**
 * The user's MCP servers plus the search server (`url`, the server's AGENTD_SEARCH_MCP_URL; default
 * Tavily's) when they have a search key, unless they list that endpoint already (their own entry, with
 * its own key or headers, stands).
 */
export function withSearchServer(
  config: MCPConfig | null | undefined,
  searchKey: string | null | undefined,
  url = TAVILY_MCP_URL,
): MCPConfig | null | undefined {
  const key = searchKey?.trim();
  if (!key) return config;
  const remote = [...(config?.sse_servers ?? []), ...(config?.shttp_servers ?? [])];
  if (remote.some((server) => endpoint(server.url) === endpoint(url))) return config;
  const search = { name: SEARCH_SERVER_NAME, url, api_key: key };
  return { ...config, shttp_servers: [...(config?.shttp_servers ?? []), search] };
}
