// OpenHands' POST /api/settings semantics, on sealed documents: a new secret is sealed as it comes
// in, a kept one is carried over sealed, so storing never needs to decrypt anything.
//
// - llm_model, llm_base_url, user_consents_to_analytics: null or absent keeps the stored value.
// - llm_api_key: null or absent keeps; empty or whitespace-only clears (OpenHands stores "" and
//   reads it back as null; its UI sends "" on purpose to remove a key).
// - search_api_key, sandbox_api_key: null, absent, empty or whitespace-only keeps (OpenHands' UI
//   sends "" for the search key on every save, so clearing on "" would lose it).
// - secrets_store: merged entry by entry. An entry left out is kept, a null entry is removed, an
//   entry whose token / secret is null or blank keeps the stored one (its other members are updated).
// - mcp_config: replaced, except that a server api_key that is null or blank keeps the stored key
//   of the server of the same kind with the same url (GET hides the keys, so a round trip keeps them);
//   its oauth's tokens and client secrets likewise, each kept when null, blank or redacted, and one
//   sealed for this user (an oauth_state or an `encrypted` read sent back) taken as the value it seals.
// - every other member is replaced wholesale: omitted ones take their default.
import { OAUTH_SECRETS } from '../tools/index.js';
import type { CustomSecret, MCPConfig, ProviderToken, Settings, UserSecrets } from './schemas.js';
import { REDACTED } from './sdk-schemas.js';

type Seal = (plaintext: string) => string;

const isBlank = (value: string | null | undefined): value is null | undefined | '' =>
  typeof value !== 'string' || value.trim() === '';

/**
 * The document to store: `incoming` is a parsed body (plaintext secrets), `stored` is sealed.
 * `sealSent` seals a value a client may send back sealed (OAuth state): opened first when it is.
 */
export function mergeSettings(
  stored: Settings | null,
  incoming: Settings,
  seal: Seal,
  sealSent: Seal = seal,
): Settings {
  const next: Settings = { ...incoming };
  next.llm_api_key =
    incoming.llm_api_key === null || incoming.llm_api_key === undefined
      ? (stored?.llm_api_key ?? null)
      : isBlank(incoming.llm_api_key)
        ? null
        : seal(incoming.llm_api_key);
  for (const key of ['search_api_key', 'sandbox_api_key'] as const) {
    const value = incoming[key];
    next[key] = isBlank(value) ? (stored?.[key] ?? null) : seal(value);
  }
  for (const key of ['llm_model', 'llm_base_url', 'user_consents_to_analytics'] as const) {
    (next as Record<string, unknown>)[key] = incoming[key] ?? stored?.[key] ?? null;
  }
  next.secrets_store = mergeSecrets(stored?.secrets_store, incoming.secrets_store, seal);
  next.mcp_config = incoming.mcp_config
    ? mergeMcpKeys(stored?.mcp_config, incoming.mcp_config, seal, sealSent)
    : null;
  return next;
}

function mergeSecrets(
  stored: UserSecrets | undefined,
  incoming: UserSecrets | undefined,
  seal: Seal,
): UserSecrets {
  return {
    provider_tokens: mergeProviderTokens(stored?.provider_tokens, incoming?.provider_tokens, seal),
    custom_secrets: mergeEntries<CustomSecret>(
      stored?.custom_secrets,
      incoming?.custom_secrets,
      'secret',
      seal,
      (e) => Boolean(e.secret),
    ),
  };
}

/**
 * Git provider tokens merged provider by provider: a blank token keeps the stored one, the other
 * members are the incoming ones; a provider with neither token nor user id is dropped (OpenHands').
 */
export function mergeProviderTokens(
  stored: Record<string, ProviderToken | null> | undefined,
  incoming: Record<string, ProviderToken | null> | undefined,
  seal: Seal,
): Record<string, ProviderToken> {
  return mergeEntries<ProviderToken>(stored, incoming, 'token', seal, (e) => Boolean(e.token || e.user_id));
}

function mergeEntries<E extends Record<string, string | null | undefined>>(
  stored: Record<string, E | null> | undefined,
  incoming: Record<string, E | null> | undefined,
  valueKey: keyof E & string,
  seal: Seal,
  keep: (entry: E) => boolean,
): Record<string, E> {
  // A Map, not an object: entry names come from the client (`__proto__` must stay a plain name).
  const out = new Map<string, E>();
  for (const [name, entry] of Object.entries(stored ?? {})) if (entry) out.set(name, entry);
  for (const [name, entry] of Object.entries(incoming ?? {})) {
    if (entry === null) {
      out.delete(name);
      continue;
    }
    const previous = out.get(name);
    const value = entry[valueKey];
    const merged = {
      ...previous,
      ...entry,
      [valueKey]: isBlank(value) ? (previous?.[valueKey] ?? null) : seal(value),
    } as E;
    if (keep(merged)) out.set(name, merged);
    else out.delete(name);
  }
  return Object.fromEntries(out);
}

type RemoteServer = NonNullable<MCPConfig['shttp_servers']>[number];
type McpOAuth = NonNullable<RemoteServer['oauth']>;

function mergeMcpKeys(
  stored: MCPConfig | null | undefined,
  incoming: MCPConfig,
  seal: Seal,
  sealSent: Seal,
): MCPConfig {
  const keyed = <S extends RemoteServer>(
    servers: S[] | undefined,
    previous: S[] | undefined,
  ): S[] | undefined =>
    servers?.map((server) => {
      const before = previous?.find((p) => p.url === server.url);
      return {
        ...server,
        api_key: isBlank(server.api_key) ? (before?.api_key ?? null) : seal(server.api_key),
        ...(server.oauth ? { oauth: mergeOAuth(before?.oauth ?? null, server.oauth, sealSent) } : {}),
      };
    });
  return {
    ...incoming,
    sse_servers: keyed(incoming.sse_servers, stored?.sse_servers),
    shttp_servers: keyed(incoming.shttp_servers, stored?.shttp_servers),
  };
}

/**
 * An incoming oauth credential, each secret sealed; where one is null, blank or redacted (GET shows
 * them so) in an object that is there, the stored one. An object left out or null stays so: a state
 * cleared is cleared.
 */
export function mergeOAuth(stored: McpOAuth | null, incoming: McpOAuth, sealSent: Seal): McpOAuth {
  const out = structuredClone(incoming) as Record<string, unknown>;
  for (const path of OAUTH_SECRETS) {
    const parent = objectAt(out, path.slice(0, -1));
    if (!parent) continue;
    const member = path[path.length - 1]!;
    const value = parent[member];
    if (typeof value === 'string' && !isBlank(value) && value !== REDACTED) parent[member] = sealSent(value);
    else parent[member] = objectAt(stored, path.slice(0, -1))?.[member] ?? null;
  }
  return out as McpOAuth;
}

/** The object at `path` (null when something on the way is not one). */
function objectAt(root: unknown, path: readonly string[]): Record<string, unknown> | null {
  let value = root;
  for (const member of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[member] : null;
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}
