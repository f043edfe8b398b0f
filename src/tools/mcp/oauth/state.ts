// An MCP server's OAuth state as agentd handles it: where it is kept (OAuthStateStore, so a refreshed
// token outlives the connection and a restart), its secrets mapped in one place (sealed, opened,
// masked: the settings and the conversations both go through mapOAuthSecrets), and the pieces the
// MCP SDK's OAuth client reads and writes (tokens, the registered client).
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuth, McpOAuthState } from './schemas.js';

/** Where a server's OAuth state lives: its entry in the user's settings, or in a conversation's agent. */
export interface OAuthStateStore {
  /** Connections are shared only between servers whose state lives in the same place. */
  readonly id: string;
  /**
   * Runs `change` in the store's turn, on the state as stored now (null: the server is no longer
   * there), and stores the state it answers (null: nothing to store).
   */
  update(change: (stored: McpOAuthState | null) => Promise<McpOAuthState | null>): Promise<void>;
}

/** A remote server's OAuth credential as the pool gets it: values in clear, and where to keep new ones. */
export type McpOAuthServer = McpOAuth & { store?: OAuthStateStore | null };

/** The secret members, by where they sit (`authentication.client_secret` is the pre-registered client's). */
export const OAUTH_SECRETS = [
  ['state', 'tokens', 'access_token'],
  ['state', 'tokens', 'refresh_token'],
  ['state', 'client_info', 'client_secret'],
  ['authentication', 'client_secret'],
] as const;

type Mapper = (value: string, path: string) => string | null;

/** The credential with each secret string passed through `f` (null and absent stay as they are). */
export function mapOAuthSecrets<T extends McpOAuth>(oauth: T, f: Mapper): T {
  const out = structuredClone(oauth) as Record<string, unknown>;
  for (const path of OAUTH_SECRETS) {
    let parent: Record<string, unknown> | undefined = out;
    for (const member of path.slice(0, -1)) {
      const next: unknown = parent?.[member];
      parent = next && typeof next === 'object' ? (next as Record<string, unknown>) : undefined;
    }
    const last = path[path.length - 1]!;
    const value = parent?.[last];
    if (parent && typeof value === 'string') parent[last] = f(value, path.join('.'));
  }
  return out as T;
}

/** Only the members agentd keeps (McpOAuth's), each object's extras left out. */
export function keptOAuth(sent: Record<string, unknown>): McpOAuth {
  const pick = (value: unknown, members: readonly string[]) => {
    if (!value || typeof value !== 'object') return value === null ? null : undefined;
    const source = value as Record<string, unknown>;
    return Object.fromEntries(members.filter((m) => source[m] !== undefined).map((m) => [m, source[m]]));
  };
  const state = sent.state as Record<string, unknown> | null | undefined;
  const kept: Record<string, unknown> = {};
  if (sent.authentication !== undefined)
    kept.authentication = pick(sent.authentication, AUTHENTICATION_MEMBERS);
  if (state !== undefined)
    kept.state =
      state === null
        ? null
        : {
            ...(state.tokens !== undefined ? { tokens: pick(state.tokens, TOKEN_MEMBERS) } : {}),
            ...(state.client_info !== undefined
              ? { client_info: pick(state.client_info, CLIENT_MEMBERS) }
              : {}),
            ...(state.token_expires_at !== undefined ? { token_expires_at: state.token_expires_at } : {}),
          };
  return kept as McpOAuth;
}

const AUTHENTICATION_MEMBERS = [
  'type',
  'client_auth_method',
  'scopes',
  'client_name',
  'client_metadata_url',
  'client_id',
  'client_secret',
  'additional_client_metadata',
] as const;
const TOKEN_MEMBERS = [
  'access_token',
  'refresh_token',
  'token_type',
  'expires_in',
  'scope',
  'issuer',
] as const;
const CLIENT_MEMBERS = [
  'client_id',
  'client_secret',
  'client_id_issued_at',
  'client_secret_expires_at',
  'redirect_uris',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'client_name',
  'scope',
  'issuer',
] as const;

/** A refresh this long before the recorded expiry, so a request does not leave with a token about to lapse. */
const EXPIRY_MARGIN_S = 30;

/** Whether the access token has expired, or will within the margin (by the expiry the tokens came with). */
export function expiresSoon(state: McpOAuthState | null | undefined, nowMs: number): boolean {
  const at = state?.token_expires_at;
  return typeof at === 'number' && at - EXPIRY_MARGIN_S <= nowMs / 1000;
}

/** The state with tokens the authorization server just gave, and when the access token expires. */
export function withTokens(state: McpOAuthState, tokens: OAuthTokens, nowMs: number): McpOAuthState {
  const kept = keptOAuth({ state: { tokens } }).state?.tokens ?? null;
  const expiresIn = tokens.expires_in;
  return {
    ...state,
    tokens: kept,
    token_expires_at: typeof expiresIn === 'number' ? nowMs / 1000 + expiresIn : null,
  };
}

/**
 * The client agentd is to the authorization server: the one it registered (the state's), else one
 * registered beforehand (the authentication's client_id and secret); undefined: none yet.
 */
export function sdkClient(oauth: McpOAuth): OAuthClientInformationMixed | undefined {
  const registered = oauth.state?.client_info;
  if (registered?.client_id) return withoutNulls(registered) as OAuthClientInformationMixed;
  const given = oauth.authentication;
  if (!given?.client_id) return undefined;
  return withoutNulls({
    client_id: given.client_id,
    client_secret: given.client_secret,
    token_endpoint_auth_method: given.client_auth_method,
  }) as OAuthClientInformationMixed;
}

/** The state with the client the authorization server registered. */
export function withClient(state: McpOAuthState, client: OAuthClientInformationMixed | null): McpOAuthState {
  return {
    ...state,
    client_info: client && (keptOAuth({ state: { client_info: client } }).state?.client_info ?? null),
  };
}

/** Whether the state holds anything worth keeping. */
export const hasValues = (state: McpOAuthState | null | undefined): state is McpOAuthState =>
  Boolean(state?.tokens?.access_token || state?.client_info?.client_id);

function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}
