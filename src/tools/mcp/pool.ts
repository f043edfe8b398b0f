// Connections to the MCP servers of a user's mcp_config (stdio, SSE, streamable HTTP). A connection
// is shared by the conversations of one user with the same server config, and closed when the last
// of them lets go. A server that cannot start is reported as a warning and leaves the others usable.
// An OAuth server's connection is shared by the servers whose state lives in the same place (its
// tokens change as they are refreshed; the grant keeps them, see oauth/grant.ts).
import type { Tool } from '../types.js';
import {
  CONNECT_TIMEOUT_MS,
  type Connection,
  connect,
  type Server,
  type ToolCall,
  testServer,
} from './connect.js';
import { OAuthGrant } from './oauth/grant.js';
import type { McpOAuthState } from './oauth/schemas.js';
import type { McpOAuthServer } from './oauth/state.js';
import { mcpTool } from './tool.js';

/**
 * A remote server: its URL, and what it is sent with each request (a bearer key, other headers), or
 * its OAuth credential (a token from its grant).
 */
interface RemoteServer {
  url: string;
  api_key?: string | null;
  headers?: Record<string, string> | null;
  oauth?: McpOAuthServer | null;
  /** What to call it in warnings (the agent's own servers have names); else its URL. */
  name?: string;
}

export interface McpServers {
  stdio_servers?:
    | { name: string; command: string; args?: string[]; env?: Record<string, string>; cwd?: string }[]
    | null;
  sse_servers?: RemoteServer[] | null;
  shttp_servers?: (RemoteServer & { timeout?: number })[] | null;
}

function remote(type: 'sse' | 'shttp', s: RemoteServer): Server {
  const auth: Record<string, string> = s.api_key ? { Authorization: `Bearer ${s.api_key}` } : {};
  return {
    type,
    name: s.name ?? s.url,
    url: s.url,
    headers: { ...auth, ...s.headers },
    ...(s.oauth ? { oauth: s.oauth } : {}),
  };
}

/**
 * What makes two servers one connection: the whole config, except that an OAuth server's changing
 * tokens are left out and where they are kept counts instead.
 */
function keyOf(owner: string, server: Server): string {
  if (server.type === 'stdio' || !server.oauth) return `${owner}\u0000${JSON.stringify(server)}`;
  const { state: _tokens, store, ...credential } = server.oauth;
  const shared = { ...server, oauth: { ...credential, store: store?.id ?? null } };
  return `${owner}\u0000${JSON.stringify(shared)}`;
}

interface Entry {
  ready: Promise<Connection>;
  refs: number;
}

export interface McpLease {
  tools: Tool[];
  /** Servers that could not be reached, with the reason. */
  warnings: string[];
  release(): Promise<void>;
}

function serversOf(config: McpServers | null | undefined): Server[] {
  if (!config) return [];
  return [
    ...(config.stdio_servers ?? []).map((s) => ({
      type: 'stdio' as const,
      name: s.name,
      command: s.command,
      args: s.args ?? [],
      env: s.env ?? {},
      ...(s.cwd ? { cwd: s.cwd } : {}),
    })),
    ...(config.sse_servers ?? []).map((s) => remote('sse', s)),
    ...(config.shttp_servers ?? []).map((s) => remote('shttp', s)),
  ];
}

/**
 * Connects to one server of a config (the `index`th of its `type` list), lists its tool names and
 * disconnects: the settings page's "test". Throws with the reason when it cannot connect.
 */
export async function probeMcpServer(
  config: McpServers | null | undefined,
  type: 'stdio' | 'sse' | 'shttp',
  index: number,
): Promise<string[] | null> {
  const server = serversOf(config).filter((s) => s.type === type)[index];
  return server ? (await testServer(server, CONNECT_TIMEOUT_MS)).tools : null;
}

/**
 * Connects to the first server of `config` (a candidate, not necessarily saved), lists its tools,
 * calls `toolCall` when asked (a read-only one the caller chose, to exercise its credentials), and
 * disconnects. An OAuth server's requests go through `grant` (one of its own when none is given) and
 * its state after the test comes back as `oauthState` (refreshed, maybe). Throws McpTimeoutError past
 * `timeoutMs`, the transport's error when it cannot connect (McpAuthorizationRequiredError when the
 * user must authorize).
 */
export async function testMcpServer(
  config: McpServers,
  timeoutMs: number,
  toolCall?: ToolCall,
  grant?: OAuthGrant,
): Promise<Awaited<ReturnType<typeof testServer>> & { oauthState?: McpOAuthState }> {
  const server = serversOf(config)[0];
  if (!server) throw new Error('no server to test');
  const oauth = server.type === 'stdio' ? undefined : server.oauth;
  const used = grant ?? (oauth ? new OAuthGrant(new URL((server as { url: string }).url), oauth) : undefined);
  const result = await testServer(server, timeoutMs, toolCall, used);
  return used ? { ...result, oauthState: used.current } : result;
}

export class McpPool {
  private readonly entries = new Map<string, Entry>();

  /** Connects (or shares) the user's servers and returns their tools; release() when done. */
  async acquire(
    owner: string,
    config: McpServers | null | undefined,
    taken: ReadonlySet<string> = new Set(),
  ): Promise<McpLease> {
    const keys: string[] = [];
    const tools: Tool[] = [];
    const warnings: string[] = [];
    const names = new Set(taken);
    for (const server of serversOf(config)) {
      const key = keyOf(owner, server);
      let entry = this.entries.get(key);
      if (!entry) {
        entry = { ready: connect(server), refs: 0 };
        this.entries.set(key, entry);
        const created = entry;
        created.ready.then(
          (c) => {
            // A server that dies is forgotten, so the next conversation starts it again.
            c.client.onclose = () => {
              if (this.entries.get(key) === created) this.entries.delete(key);
            };
          },
          () => this.entries.delete(key),
        );
      }
      try {
        const connection = await entry.ready;
        entry.refs++;
        keys.push(key);
        for (const info of connection.tools) {
          if (names.has(info.name)) {
            warnings.push(`MCP server ${server.name}: tool ${info.name} skipped, the name is already taken`);
            continue;
          }
          names.add(info.name);
          tools.push(mcpTool(connection.client, info) as Tool);
        }
      } catch (error) {
        warnings.push(`MCP server ${server.name} could not be started: ${(error as Error).message}`);
      }
    }
    let released = false;
    return {
      tools,
      warnings,
      release: async () => {
        if (released) return;
        released = true;
        await Promise.all(keys.map((key) => this.releaseOne(key)));
      },
    };
  }

  private async releaseOne(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.refs--;
    if (entry.refs > 0) return;
    this.entries.delete(key);
    const connection = await entry.ready.catch(() => null);
    await connection?.client.close().catch(() => undefined);
  }

  /** Open connections (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      all.map(async (e) => (await e.ready.catch(() => null))?.client.close().catch(() => undefined)),
    );
  }
}
