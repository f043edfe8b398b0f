// A real OAuth 2.1 authorization server and a real MCP server that requires its bearer tokens, each
// on its own loopback port (so its own origin), for the MCP OAuth tests. The authorization server
// has metadata (RFC 8414), dynamic client registration (RFC 7591), an authorize endpoint that sends
// the browser straight back with a code (no login page: the test is the user), and a token endpoint
// that checks PKCE (S256), the redirect URI, the client and the resource, and rotates refresh tokens.
// The MCP server publishes its protected-resource metadata (RFC 9728) and answers 401 with a
// WWW-Authenticate pointing at it to a request without a live token. The test drives expiry: access
// tokens can be made to expire at once, refresh tokens revoked, an authorization refused.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// @ts-expect-error: a plain JS test helper
import { mcpServer } from './mcp-server.mjs';

interface Client {
  secret: string | null;
  redirectUris: string[];
  method: string;
}

export interface OAuthServersOptions {
  /** expires_in of the access tokens (default an hour). */
  accessTokenSeconds?: number;
  /** Changes the authorization server's metadata (to point an endpoint elsewhere, say). */
  metadata?: (metadata: Record<string, unknown>) => Record<string, unknown>;
  /** The metadata is not found (404) the first time it is asked for, then served. */
  metadataOnSecondAsk?: boolean;
  /** The metadata is answered this late (to make a job outlive its time before the browser is asked). */
  metadataDelayMs?: number;
}

export class OAuthServers {
  mcpUrl = '';
  issuer = '';
  /** Every secret the authorization server gave out (tokens, codes, client secrets). */
  readonly secrets = new Set<string>();
  /** The grant_type of each token request, in order. */
  readonly grants: string[] = [];
  /** Requests the MCP server refused for want of a live token. */
  refusals = 0;
  /** The authorize endpoint sends the browser back with access_denied. */
  refuseAuthorization = false;
  readonly clients = new Map<string, Client>();
  private metadataAsks = 0;
  private readonly codes = new Map<
    string,
    { clientId: string; redirectUri: string; challenge: string; resource: string | null }
  >();
  private readonly access = new Map<string, { expiresAt: number }>();
  private readonly refresh = new Map<string, { clientId: string }>();
  private readonly servers: Server[] = [];

  constructor(private readonly options: OAuthServersOptions) {}

  /** Every access token given so far stops working: the next request with one is refused (401). */
  expireAccessTokens(): void {
    for (const entry of this.access.values()) entry.expiresAt = 0;
  }

  /** Every refresh token given so far is revoked. */
  revokeRefreshTokens(): void {
    this.refresh.clear();
  }

  async start(): Promise<this> {
    const as = await listen((req, res) => this.authorization(req, res));
    const rs = await listen((req, res) => this.resource(req, res));
    this.servers.push(as.server, rs.server);
    this.issuer = as.url;
    this.mcpUrl = `${rs.url}/mcp`;
    return this;
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  private metadata(): Record<string, unknown> {
    const metadata = {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: ['mcp'],
    };
    return this.options.metadata ? this.options.metadata(metadata) : metadata;
  }

  private async authorization(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      this.metadataAsks += 1;
      if (this.options.metadataOnSecondAsk && this.metadataAsks === 1) return json(res, 404, {});
      await new Promise((resolve) => setTimeout(resolve, this.options.metadataDelayMs ?? 0));
      return json(res, 200, this.metadata());
    }
    if (req.method === 'POST' && url.pathname === '/register') return this.register(req, res);
    if (req.method === 'GET' && url.pathname === '/authorize') return this.authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/token') return this.token(req, res);
    json(res, 404, { error: 'not_found' });
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = JSON.parse(await text(req)) as Record<string, unknown>;
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string'))
      return json(res, 400, { error: 'invalid_redirect_uri' });
    const method =
      typeof body.token_endpoint_auth_method === 'string'
        ? body.token_endpoint_auth_method
        : 'client_secret_basic';
    const id = `client-${token()}`;
    const secret = method === 'none' ? null : this.give(`cs-${token()}`);
    this.clients.set(id, { secret, redirectUris: uris as string[], method });
    json(res, 201, {
      ...body,
      client_id: id,
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      token_endpoint_auth_method: method,
    });
  }

  private authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const client = this.clients.get(q.get('client_id') ?? '');
    const redirectUri = q.get('redirect_uri') ?? '';
    // Never sent back to a URI the client did not register: an open redirect otherwise.
    if (!client?.redirectUris.includes(redirectUri)) {
      json(res, 400, { error: 'invalid_request' });
      return;
    }
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    if (this.refuseAuthorization) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user said no');
    } else if (
      q.get('response_type') !== 'code' ||
      q.get('code_challenge_method') !== 'S256' ||
      !q.get('code_challenge')
    ) {
      back.searchParams.set('error', 'invalid_request');
    } else {
      const code = this.give(`code-${token()}`);
      this.codes.set(code, {
        clientId: q.get('client_id')!,
        redirectUri,
        challenge: q.get('code_challenge')!,
        resource: q.get('resource'),
      });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.href }).end();
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await text(req));
    const clientId = this.authenticate(req, form);
    if (!clientId) return json(res, 401, { error: 'invalid_client' });
    const grant = form.get('grant_type') ?? '';
    this.grants.push(grant);
    if (form.has('resource') && form.get('resource') !== this.mcpUrl)
      return json(res, 400, { error: 'invalid_target' });
    if (grant === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !code ||
        code.clientId !== clientId ||
        code.redirectUri !== form.get('redirect_uri') ||
        code.challenge !== challenge
      )
        return json(res, 400, { error: 'invalid_grant' });
      return json(res, 200, this.tokens(clientId));
    }
    if (grant === 'refresh_token') {
      const presented = form.get('refresh_token') ?? '';
      const known = this.refresh.get(presented);
      if (!known || known.clientId !== clientId)
        return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
      this.refresh.delete(presented); // rotated: OAuth 2.1 for public clients
      return json(res, 200, this.tokens(clientId));
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  /** The client a token request authenticates as (basic, post, or a public client by id), or null. */
  private authenticate(req: IncomingMessage, form: URLSearchParams): string | null {
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const [user, pass] = Buffer.from(basic[1]!, 'base64').toString().split(':');
      id = decodeURIComponent(user ?? '');
      secret = decodeURIComponent(pass ?? '');
    }
    const client = id ? this.clients.get(id) : undefined;
    if (!client || client.secret !== (secret ?? null)) return null;
    return id;
  }

  private tokens(clientId: string) {
    const seconds = this.options.accessTokenSeconds ?? 3600;
    const access = this.give(`at-${token()}`);
    const refresh = this.give(`rt-${token()}`);
    this.access.set(access, { expiresAt: Date.now() + seconds * 1000 });
    this.refresh.set(refresh, { clientId });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: seconds,
      refresh_token: refresh,
      scope: 'mcp',
    };
  }

  private give(secret: string): string {
    this.secrets.add(secret);
    return secret;
  }

  private async resource(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = new URL(this.mcpUrl).origin;
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
      return json(res, 200, {
        resource: this.mcpUrl,
        authorization_servers: [this.issuer],
        scopes_supported: ['mcp'],
      });
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not_found' });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const live = bearer ? this.access.get(bearer) : undefined;
    if (!live || live.expiresAt <= Date.now()) {
      this.refusals++;
      res.writeHead(401, {
        'www-authenticate': `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        'content-type': 'application/json',
      });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    // Stateless streamable HTTP: a fresh server and transport per request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  }
}

export function startOAuthServers(options: OAuthServersOptions = {}): Promise<OAuthServers> {
  return new OAuthServers(options).start();
}

const token = () => randomBytes(18).toString('base64url');

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
}
