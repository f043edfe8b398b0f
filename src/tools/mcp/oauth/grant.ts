// One MCP server's OAuth grant while agentd uses it: the access token each request carries, renewed
// with the refresh token when it has expired (by the expiry it came with) or the server refuses it
// (401), the new tokens written back to where the server is stored (OAuthStateStore) in that
// store's turn. Renewals read the stored state first: a connection that finds a token another one
// stored meanwhile takes it instead of spending the refresh token again (authorization servers
// rotate refresh tokens, so two refreshes with one would fail the second).
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type Discovery,
  discover,
  McpAuthorizationRequiredError,
  McpOAuthError,
  oauthFetch,
  sameIssuer,
} from './outbound.js';
import type { McpOAuthState } from './schemas.js';
import { expiresSoon, type McpOAuthServer, sdkClient, withClient, withTokens } from './state.js';

/** What the server's last 401 said (RFC 9728 / RFC 6750): where its metadata is, which scope it wants. */
export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

export class OAuthGrant {
  private state: McpOAuthState;
  private discovery: Promise<Discovery> | null = null;
  private renewing: Promise<void> | null = null;
  /** What the last refusal said; the browser authorization asks for its scope. */
  challenge: Challenge = {};

  constructor(
    readonly serverUrl: URL,
    private readonly oauth: McpOAuthServer,
    private readonly now: () => number = Date.now,
  ) {
    this.state = oauth.state ?? {};
  }

  /** The state as it stands now (values in clear). */
  get current(): McpOAuthState {
    return this.state;
  }

  get authentication() {
    return this.oauth.authentication ?? null;
  }

  /** The client agentd is to the authorization server (registered, or given), if any. */
  client() {
    return sdkClient({ ...this.oauth, state: this.state });
  }

  setClient(client: Parameters<typeof withClient>[1]): void {
    this.state = withClient(this.state, client);
  }

  setTokens(tokens: Parameters<typeof withTokens>[1]): void {
    this.state = withTokens(this.state, tokens, this.now());
  }

  /** Discovery, once per grant (again after a failure). */
  discover(): Promise<Discovery> {
    this.discovery ??= discover(this.serverUrl, this.challenge.resourceMetadataUrl).catch((error) => {
      this.discovery = null;
      throw error;
    });
    return this.discovery;
  }

  /**
   * The MCP transport's fetch: requests to the server's origin only, each with the access token (renewed
   * first when it has expired); one the server refuses with 401 is sent once more after a renewal. A
   * server that needs the user throws McpAuthorizationRequiredError.
   */
  readonly fetch: FetchLike = async (url, init) => {
    const target = new URL(url);
    if (target.origin !== this.serverUrl.origin)
      throw new McpOAuthError(`agentd sends this MCP server's requests only to ${this.serverUrl.origin}`);
    if (expiresSoon(this.state, this.now()) && this.state.tokens?.refresh_token)
      await this.renew(this.state.tokens.access_token ?? undefined);
    const token = this.state.tokens?.access_token ?? undefined;
    const first = await fetch(target, withBearer(init, token));
    if (first.status !== 401) return first;
    await first.body?.cancel();
    const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(first);
    this.challenge = { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    await this.renew(token);
    return fetch(target, withBearer(init, this.state.tokens?.access_token ?? undefined));
  };

  /**
   * A token to replace `refused` (refused by the server, or expired): the one stored meanwhile by
   * another connection, else a refreshed one, written back. One renewal at a time.
   */
  renew(refused: string | undefined): Promise<void> {
    this.renewing ??= this.renewed(refused).finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  private async renewed(refused: string | undefined): Promise<void> {
    const store = this.oauth.store;
    // Found before the store's turn, so a slow authorization server does not hold the owner's other
    // writes for its discovery too; a failure shows again in the refresh.
    if (store && this.state.tokens?.refresh_token) await this.discover().catch(() => undefined);
    if (!store) {
      this.state = await this.refreshed(this.state);
      return;
    }
    await store.update(async (stored) => {
      const latest = stored ?? this.state;
      const token = latest.tokens?.access_token;
      if (token && token !== refused && !expiresSoon(latest, this.now())) {
        this.state = latest;
        return null;
      }
      this.state = await this.refreshed(latest);
      // A server removed meanwhile keeps its new tokens for this connection only.
      return stored ? this.state : null;
    });
  }

  /** The state with refreshed tokens; McpAuthorizationRequiredError when there is nothing to refresh with. */
  private async refreshed(state: McpOAuthState): Promise<McpOAuthState> {
    const refreshToken = state.tokens?.refresh_token;
    const client = sdkClient({ ...this.oauth, state });
    if (!refreshToken || !client) throw new McpAuthorizationRequiredError(this.serverUrl);
    const { refreshAuthorization, selectResourceURL } = await import(
      '@modelcontextprotocol/sdk/client/auth.js'
    );
    const { OAuthError, ServerError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
    const { state: found, origins } = await this.discover();
    const issuer = found.authorizationServerUrl;
    // A refresh token goes only to the authorization server that issued it.
    if (state.tokens?.issuer && !sameIssuer(state.tokens.issuer, issuer))
      throw new McpAuthorizationRequiredError(this.serverUrl, `its tokens are from ${state.tokens.issuer}`);
    // As the SDK's auth() does: the metadata's resource, checked against the server, sent verbatim.
    const resource = found.resourceMetadata
      ? (await selectResourceURL(this.serverUrl, {} as never, found.resourceMetadata)) &&
        found.resourceMetadata.resource
      : undefined;
    try {
      const tokens = await refreshAuthorization(issuer, {
        metadata: found.authorizationServerMetadata,
        clientInformation: client,
        refreshToken,
        ...(resource ? { resource } : {}),
        fetchFn: oauthFetch(origins),
      });
      return withTokens(state, { ...tokens, issuer }, this.now());
    } catch (error) {
      // The authorization server said no (the grant was revoked, the client is gone): the user must.
      if (error instanceof OAuthError && !(error instanceof ServerError))
        throw new McpAuthorizationRequiredError(this.serverUrl, `the refresh was refused: ${error.message}`);
      throw error;
    }
  }
}

/** `init` with the access token as a bearer credential (none when there is no token yet). */
function withBearer(init: RequestInit | undefined, token: string | undefined): RequestInit {
  const headers = new Headers(init?.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  else headers.delete('authorization');
  return { ...init, headers };
}
