// A browser authorization of a grant (OAuth 2.1 authorization code with PKCE), run by the MCP SDK's
// auth(): agentd registers itself with the authorization server when it has no client for this
// redirect URI yet (dynamic client registration), makes the URL the user opens, and exchanges the code
// the browser brings back. This is the SDK's OAuthClientProvider over the grant's state; discovery
// is agentd's own (outbound.ts), handed in so auth() does not discover again where it would not check.
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthGrant } from './grant.js';
import { McpOAuthError, oauthFetch } from './outbound.js';

export class BrowserAuthorization implements OAuthClientProvider {
  private verifier: string | null = null;
  private discovered: OAuthDiscoveryState | undefined;
  private origins: ReadonlySet<string> = new Set();
  private url: URL | null = null;

  /**
   * `redirectUrl`: where the authorization server sends the browser back (agentd's callback page);
   * `stateParam`: the OAuth `state` that callback must carry.
   */
  constructor(
    private readonly grant: OAuthGrant,
    readonly redirectUrl: string,
    private readonly stateParam: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    const given = this.grant.authentication;
    const scopes = given?.scopes;
    return {
      ...(given?.additional_client_metadata ?? {}),
      client_name: given?.client_name || 'agentd',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(given?.client_auth_method ? { token_endpoint_auth_method: given.client_auth_method } : {}),
      ...(scopes ? { scope: Array.isArray(scopes) ? scopes.join(' ') : scopes } : {}),
    };
  }

  get clientMetadataUrl(): string | undefined {
    return this.grant.authentication?.client_metadata_url ?? undefined;
  }

  state(): string {
    return this.stateParam;
  }

  /** The client for this redirect URI; one registered for another (an earlier probe elsewhere) registers again. */
  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.grant.client();
    const uris = client && 'redirect_uris' in client ? client.redirect_uris : undefined;
    return uris && !uris.includes(this.redirectUrl) ? undefined : client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.grant.setClient(client);
  }

  /** None: this flow asks the user; a refresh is the grant's. */
  tokens(): undefined {
    return undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.grant.setTokens(tokens);
  }

  /**
   * The URL the user opens: on the authorization server's own origin, like its other endpoints
   * (discover() checks the metadata it found; when it found none, auth() reads it again unchecked).
   */
  redirectToAuthorization(url: URL): void {
    const server = this.discovered?.authorizationServerUrl;
    if (!server || url.origin !== new URL(server).origin)
      throw new McpOAuthError(
        `The authorization server ${server ? new URL(server).origin : '(none)'} sends the browser to ${url.origin}: agentd opens only its own origin`,
      );
    this.url = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('No authorization was started');
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }

  /** Discovery is agentd's, checked; auth() re-saving it changes nothing. */
  saveDiscoveryState(): void {}

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.grant.setClient(null);
    if (scope === 'all' || scope === 'verifier') this.verifier = null;
  }

  /** Registers when needed and makes the URL the user opens. */
  async begin(): Promise<URL> {
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const found = await this.grant.discover();
    this.discovered = found.state;
    this.origins = found.origins;
    const scope = this.clientMetadata.scope ?? this.grant.challenge.scope;
    await auth(this, {
      serverUrl: this.grant.serverUrl,
      ...(scope ? { scope } : {}),
      fetchFn: oauthFetch(this.origins),
    });
    if (!this.url) throw new Error('The authorization server gave no authorization URL');
    return this.url;
  }

  /** Exchanges the code the browser brought back for tokens (kept in the grant). */
  async finish(code: string): Promise<void> {
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    await auth(this, {
      serverUrl: this.grant.serverUrl,
      authorizationCode: code,
      fetchFn: oauthFetch(this.origins),
    });
  }
}
