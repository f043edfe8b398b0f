// The OpenHands SDK's OAuth credential of a remote MCP server (`auth: {strategy: "oauth2",
// authentication?, state?}`, its MCPOAuthAuthCredential): what to register and ask for
// (MCPOAuthAuthentication) and what an authorization gave (MCPOAuthState: the tokens, the client the
// authorization server registered, when the access token expires). The members agentd keeps are
// typed; others are accepted and dropped (a token response's id_token, say: nothing MCP uses, and a
// secret agentd would otherwise have to keep). Secrets: the access and refresh tokens and the
// client secrets (OAUTH_SECRETS), sealed at rest and masked in every answer.
import { type Static, type TSchema, Type } from 'typebox';

const OrNull = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const Text = (maxLength: number) => Type.String({ maxLength });
/** A token or client secret: long enough for a JWT, bounded like every input. */
const SecretText = () => Type.String({ maxLength: 16384, format: 'password' });
const Texts = (maxLength: number) => Type.Array(Text(maxLength), { maxItems: 20 });

export const McpOAuthTokens = Type.Object({
  access_token: OrNull(SecretText()),
  refresh_token: OrNull(SecretText()),
  token_type: OrNull(Text(64)),
  expires_in: OrNull(Type.Number()),
  scope: OrNull(Text(4096)),
  /** The authorization server that issued them (stamped by the MCP SDK; a refresh goes only there). */
  issuer: OrNull(Text(2048)),
});

export const McpOAuthClientInfo = Type.Object({
  client_id: OrNull(Text(1024)),
  client_secret: OrNull(SecretText()),
  client_id_issued_at: OrNull(Type.Number()),
  client_secret_expires_at: OrNull(Type.Number()),
  redirect_uris: OrNull(Texts(2048)),
  token_endpoint_auth_method: OrNull(Text(64)),
  grant_types: OrNull(Texts(128)),
  response_types: OrNull(Texts(128)),
  client_name: OrNull(Text(256)),
  scope: OrNull(Text(4096)),
  issuer: OrNull(Text(2048)),
});

/** OpenHands' MCPOAuthState / MCPOAuthStateResponse; `token_expires_at` in seconds since the epoch. */
export const McpOAuthState = Type.Object(
  {
    tokens: OrNull(McpOAuthTokens),
    client_info: OrNull(McpOAuthClientInfo),
    token_expires_at: OrNull(Type.Number()),
  },
  {
    description:
      "What an MCP server's OAuth authorization gave, to keep under the server's auth.state (OpenHands' MCPOAuthState)",
  },
);
export type McpOAuthState = Static<typeof McpOAuthState>;

/** OpenHands' MCPOAuthAuthentication: how agentd registers itself and what it asks for. */
export const McpOAuthAuthentication = Type.Object({
  type: Type.Optional(Type.Literal('oauth')),
  client_auth_method: OrNull(
    Type.Union(['none', 'client_secret_post', 'client_secret_basic'].map((m) => Type.Literal(m))),
  ),
  scopes: OrNull(Type.Union([Text(4096), Type.Array(Text(256), { maxItems: 100 })])),
  client_name: OrNull(Text(256)),
  client_metadata_url: OrNull(Text(2048)),
  /** A client registered beforehand (its redirect URI must be agentd's /ui/oauth/callback). */
  client_id: OrNull(Text(1024)),
  client_secret: OrNull(SecretText()),
  additional_client_metadata: OrNull(
    Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 50 }),
  ),
});
export type McpOAuthAuthentication = Static<typeof McpOAuthAuthentication>;

/** The credential without its strategy: what a server of strategy oauth2 keeps. */
export const McpOAuth = Type.Object({
  authentication: OrNull(McpOAuthAuthentication),
  state: OrNull(McpOAuthState),
});
export type McpOAuth = Static<typeof McpOAuth>;
