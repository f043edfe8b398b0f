// Connections to the MCP servers of a user's mcp_config (stdio, SSE, streamable HTTP). A connection
// is shared by the conversations of one user with the same server config, and closed when the last
// of them lets go. A server that cannot start is reported as a warning and leaves the others usable.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '../types.js';
import { type McpToolInfo, mcpTool } from './tool.js';

/** A remote server: its URL, and what it is sent with each request (a bearer key, other headers). */
interface RemoteServer {
  url: string;
  api_key?: string | null;
  headers?: Record<string, string> | null;
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

type Server =
  | {
      type: 'stdio';
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
    }
  | { type: 'sse' | 'shttp'; name: string; url: string; headers: Record<string, string> };

function remote(type: 'sse' | 'shttp', s: RemoteServer): Server {
  const auth: Record<string, string> = s.api_key ? { Authorization: `Bearer ${s.api_key}` } : {};
  return { type, name: s.name ?? s.url, url: s.url, headers: { ...auth, ...s.headers } };
}

/** A server that did not connect and list its tools in time. */
export class McpTimeoutError extends Error {
  override name = 'McpTimeoutError';
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`);
  }
}

interface Connection {
  client: Client;
  tools: McpToolInfo[];
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

const CONNECT_TIMEOUT_MS = 30_000;

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

async function connect(server: Server, timeoutMs = CONNECT_TIMEOUT_MS): Promise<Connection> {
  const { Client: McpClient } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new McpClient({ name: 'agentd', version: '0.1.0' });
  let transport: Parameters<Client['connect']>[0];
  if (server.type === 'stdio') {
    const { StdioClientTransport, getDefaultEnvironment } = await import(
      '@modelcontextprotocol/sdk/client/stdio.js'
    );
    transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      ...(server.cwd ? { cwd: server.cwd } : {}),
      stderr: 'ignore',
    });
  } else {
    const headers = server.headers;
    if (server.type === 'shttp') {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
    } else {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      transport = new SSEClientTransport(new URL(server.url), { requestInit: { headers } });
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const listed = (await Promise.race([client.listTools(), timeout])) as { tools: McpToolInfo[] };
    return { client, tools: listed.tools };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
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

/** What a tool call of a server test answered, verbatim (the caller reads what it means). */
export interface McpToolCallResult {
  is_error: boolean;
  text: string;
}

/**
 * Connects to the first server of `config` (a candidate, not necessarily saved), lists its tools,
 * calls `toolCall` when asked (a read-only one the caller chose, to exercise its credentials), and
 * disconnects. Throws McpTimeoutError past `timeoutMs`, the transport's error when it cannot connect.
 */
export function testMcpServer(
  config: McpServers,
  timeoutMs: number,
  toolCall?: { name: string; arguments: Record<string, unknown> },
): Promise<{ tools: string[]; toolResult?: McpToolCallResult }> {
  const server = serversOf(config)[0];
  if (!server) throw new Error('no server to test');
  return testServer(server, timeoutMs, toolCall);
}

/** Connects, lists the tools, calls `toolCall` when given, and disconnects (both tests above). */
async function testServer(
  server: Server,
  timeoutMs: number,
  toolCall?: { name: string; arguments: Record<string, unknown> },
): Promise<{ tools: string[]; toolResult?: McpToolCallResult }> {
  const { client, tools } = await connect(server, timeoutMs);
  try {
    const names = tools.map((t) => t.name);
    if (!toolCall) return { tools: names };
    try {
      const answer = (await client.callTool(toolCall, undefined, { timeout: timeoutMs })) as {
        isError?: boolean;
        content?: { type: string; text?: string }[];
      };
      const text = (answer.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('');
      return { tools: names, toolResult: { is_error: answer.isError === true, text } };
    } catch (error) {
      // The server connected: a call it refuses (no such tool, a timeout) is the call's outcome.
      return {
        tools: names,
        toolResult: { is_error: true, text: (error as Error).message || String(error) },
      };
    }
  } finally {
    await client.close().catch(() => undefined);
  }
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
      const key = `${owner}\u0000${JSON.stringify(server)}`;
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
