// One connection to an MCP server (stdio, SSE, streamable HTTP): made, its tools listed, within a
// time limit. A remote server with an OAuth grant sends its requests through the grant (its access
// token on each, renewed when it expires or is refused).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OAuthGrant } from './oauth/grant.js';
import type { McpOAuthServer } from './oauth/state.js';
import type { McpToolInfo } from './tool.js';

export type Server =
  | {
      type: 'stdio';
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
    }
  | {
      type: 'sse' | 'shttp';
      name: string;
      url: string;
      headers: Record<string, string>;
      oauth?: McpOAuthServer;
    };

/** A server that did not connect and list its tools in time. */
export class McpTimeoutError extends Error {
  override name = 'McpTimeoutError';
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs / 1000} s`);
  }
}

export interface Connection {
  client: Client;
  tools: McpToolInfo[];
}

export const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Connects and lists the tools within `timeoutMs`. An OAuth server's requests go through `grant`
 * (made here from its credential when none is given).
 */
export async function connect(
  server: Server,
  timeoutMs = CONNECT_TIMEOUT_MS,
  grant?: OAuthGrant,
): Promise<Connection> {
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
    const oauth = grant ?? (server.oauth ? new OAuthGrant(new URL(server.url), server.oauth) : undefined);
    const options = { requestInit: { headers }, ...(oauth ? { fetch: oauth.fetch } : {}) };
    if (server.type === 'shttp') {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      transport = new StreamableHTTPClientTransport(new URL(server.url), options);
    } else {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      transport = new SSEClientTransport(new URL(server.url), options);
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

/** What a tool call of a server test answered, verbatim (the caller reads what it means). */
export interface McpToolCallResult {
  is_error: boolean;
  text: string;
}

export type ToolCall = { name: string; arguments: Record<string, unknown> };

/** Connects, lists the tools, calls `toolCall` when given, and disconnects (the server tests). */
export async function testServer(
  server: Server,
  timeoutMs: number,
  toolCall?: ToolCall,
  grant?: OAuthGrant,
): Promise<{ tools: string[]; toolResult?: McpToolCallResult }> {
  const { client, tools } = await connect(server, timeoutMs, grant);
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
