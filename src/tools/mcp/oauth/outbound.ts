// Where agentd's OAuth requests for an MCP server may go, and how much of an answer it reads. The
// user's configuration names one place, the MCP server; its protected-resource metadata (read only
// from the server's own origin) names the authorization server; that server's metadata must keep
// its endpoints (authorize, token, registration) on its own origin; one on this machine or a private
// network is asked only for an MCP server there too. Nothing else is ever asked: a
// document pointing elsewhere fails the flow with a message naming where it pointed. Every OAuth
// request has a timeout and a cap on the answer it reads.
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInternalHost, isLoopbackHost } from '../../../net/index.js';

/** Each OAuth request (metadata, registration, token) gets this long. */
export const OAUTH_REQUEST_TIMEOUT_MS = 10_000;
/** The most of an OAuth answer read (metadata, registration and token answers are small JSON). */
export const OAUTH_MAX_RESPONSE_BYTES = 64 * 1024;

/** The OAuth flow cannot go on: a policy refusal, a document that is not usable. Its message is safe to show. */
export class McpOAuthError extends Error {
  override name = 'McpOAuthError';
}

/** The server needs the user to authorize agentd (again): no token, or one that can no longer be refreshed. */
export class McpAuthorizationRequiredError extends Error {
  override name = 'McpAuthorizationRequiredError';
  constructor(serverUrl: URL, why?: string) {
    super(
      `MCP server ${serverUrl.origin}${serverUrl.pathname} needs OAuth authorization${why ? ` (${why})` : ''}: authorize it again from the settings (POST /api/mcp/oauth/start)`,
    );
  }
}

/**
 * An authorization server must be https (OAuth 2.1), or http on this machine's loopback; and one on
 * this machine or a private network only for an MCP server there too: a remote server's metadata
 * must not turn agentd's discovery, registration and token requests against its own neighbours.
 */
export function checkedAuthorizationServer(text: string, serverUrl: URL): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpOAuthError(
      `The MCP server names an authorization server that is not a URL: ${text.slice(0, 200)}`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw new McpOAuthError(
      `The MCP server names the authorization server ${url.origin}: agentd asks only https ones (http only on loopback)`,
    );
  if (isInternalHost(url.hostname) && !isInternalHost(serverUrl.hostname))
    throw new McpOAuthError(
      `The MCP server ${serverUrl.origin} names the authorization server ${url.origin}, on this machine or a private network: agentd asks such a one only for an MCP server there too`,
    );
  return url;
}

/**
 * A fetch for OAuth requests: to `origins` only (anything else is refused before it leaves), each
 * within the timeout, its answer read up to the cap (a longer one fails).
 */
export function oauthFetch(origins: ReadonlySet<string>, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const target = new URL(url);
    if (!origins.has(target.origin))
      throw new McpOAuthError(
        `agentd sends this MCP server's OAuth requests only to ${[...origins].join(' and ')}, not to ${target.origin}`,
      );
    const timeout = AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const response = await base(target, { ...init, signal });
    const body = await readCapped(response, target);
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The answer's body, at most OAUTH_MAX_RESPONSE_BYTES; null for the statuses that carry none. */
async function readCapped(response: Response, url: URL): Promise<Uint8Array | null> {
  if ([101, 204, 205, 304].includes(response.status) || !response.body) {
    await response.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > OAUTH_MAX_RESPONSE_BYTES)
      throw new McpOAuthError(
        `${url.origin}${url.pathname} answered more than ${OAUTH_MAX_RESPONSE_BYTES / 1024} KB`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** What discovery found, checked: the MCP SDK's discovery state, and the origins OAuth requests may go to. */
export interface Discovery {
  state: OAuthDiscoveryState;
  origins: ReadonlySet<string>;
}

/** A failure that must not be read as "the server has no metadata": a refusal, a timeout, a cap. */
const isFatal = (error: unknown) =>
  error instanceof McpOAuthError || (error instanceof DOMException && error.name === 'TimeoutError');

/**
 * Finds the MCP server's authorization server (RFC 9728, else the server's own origin as older MCP
 * servers have it) and its metadata (RFC 8414 / OpenID), with the MCP SDK's discovery, held to the
 * places above. `resourceMetadataUrl`: the one the server's 401 named, if any.
 */
export async function discover(serverUrl: URL, resourceMetadataUrl?: URL): Promise<Discovery> {
  const { discoverAuthorizationServerMetadata, discoverOAuthProtectedResourceMetadata } = await import(
    '@modelcontextprotocol/sdk/client/auth.js'
  );
  if (resourceMetadataUrl && resourceMetadataUrl.origin !== serverUrl.origin)
    throw new McpOAuthError(
      `The MCP server points to resource metadata on ${resourceMetadataUrl.origin}: agentd reads it only from the server's own origin`,
    );
  let resourceMetadata: OAuthDiscoveryState['resourceMetadata'];
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      { resourceMetadataUrl },
      oauthFetch(new Set([serverUrl.origin])),
    );
  } catch (error) {
    if (isFatal(error)) throw error;
    // No protected-resource metadata: the server's origin is its authorization server (MCP 2025-03-26).
  }
  const named = resourceMetadata?.authorization_servers?.[0] ?? new URL('/', serverUrl).href;
  const server = checkedAuthorizationServer(named, serverUrl);
  const metadata = await discoverAuthorizationServerMetadata(server, {
    fetchFn: oauthFetch(new Set([server.origin])),
  });
  for (const member of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint'] as const) {
    const endpoint = metadata?.[member];
    if (typeof endpoint === 'string' && new URL(endpoint).origin !== server.origin)
      throw new McpOAuthError(
        `The authorization server ${server.origin} names its ${member} on ${new URL(endpoint).origin}: agentd sends OAuth requests only to the authorization server's own origin`,
      );
  }
  return {
    state: {
      authorizationServerUrl: server.href,
      ...(resourceMetadata ? { resourceMetadata } : {}),
      ...(metadata ? { authorizationServerMetadata: metadata } : {}),
    },
    origins: new Set([serverUrl.origin, server.origin]),
  };
}

/** Whether two authorization server identifiers name the same server (a trailing `/` aside). */
export function sameIssuer(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      return new URL(s).href.replace(/\/$/, '');
    } catch {
      return s.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}
