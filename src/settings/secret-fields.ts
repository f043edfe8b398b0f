// Where the secrets sit in a Settings record. Sealing, opening and masking all walk this one list,
// so a secret member added here is covered by all three.
import { mapOAuthSecrets } from '../tools/index.js';
import type { MCPConfig, Settings, UserSecrets } from './schemas.js';

/** The top-level secret members. */
export const SECRET_KEYS = ['llm_api_key', 'search_api_key', 'sandbox_api_key'] as const;

/** Maps each secret string (the path names it, for error messages); null and absent stay as they are. */
export type SecretMapper = (value: string, path: string) => string | null;

export function mapSecrets(settings: Settings, fn: SecretMapper): Settings {
  const out: Settings = { ...settings };
  for (const key of SECRET_KEYS) {
    const value = out[key];
    if (typeof value === 'string') out[key] = fn(value, key);
  }
  if (out.secrets_store) out.secrets_store = mapUserSecrets(out.secrets_store, fn);
  if (out.mcp_config) out.mcp_config = mapMcpKeys(out.mcp_config, fn);
  return out;
}

function mapUserSecrets(secrets: UserSecrets, fn: SecretMapper): UserSecrets {
  const out: UserSecrets = {};
  if (secrets.provider_tokens) {
    out.provider_tokens = mapEntries(secrets.provider_tokens, (name, entry) => ({
      ...entry,
      token: mapValue(entry.token, `secrets_store.provider_tokens.${name}.token`, fn),
    }));
  }
  if (secrets.custom_secrets) {
    out.custom_secrets = mapEntries(secrets.custom_secrets, (name, entry) => ({
      ...entry,
      secret: mapValue(entry.secret, `secrets_store.custom_secrets.${name}.secret`, fn),
    }));
  }
  return out;
}

function mapMcpKeys(config: MCPConfig, fn: SecretMapper): MCPConfig {
  const out: MCPConfig = { ...config };
  const remote = <S extends { api_key?: string | null; oauth?: McpOAuth | null }>(s: S, at: string): S => ({
    ...s,
    api_key: mapValue(s.api_key, `${at}.api_key`, fn),
    ...(s.oauth ? { oauth: mapOAuthSecrets(s.oauth, (v, member) => fn(v, `${at}.oauth.${member}`)) } : {}),
  });
  if (config.sse_servers)
    out.sse_servers = config.sse_servers.map((s, i) => remote(s, `mcp_config.sse_servers.${i}`));
  if (config.shttp_servers)
    out.shttp_servers = config.shttp_servers.map((s, i) => remote(s, `mcp_config.shttp_servers.${i}`));
  return out;
}

type McpOAuth = NonNullable<NonNullable<MCPConfig['shttp_servers']>[number]['oauth']>;

const mapValue = (value: string | null | undefined, path: string, fn: SecretMapper) =>
  typeof value === 'string' ? fn(value, path) : (value ?? null);

/** Maps the entries of a record built from JSON (Object.fromEntries: a `__proto__` key stays data). */
function mapEntries<E, R>(
  record: Record<string, E | null>,
  fn: (name: string, entry: E) => R,
): Record<string, R> {
  return Object.fromEntries(
    Object.entries(record)
      .filter((pair): pair is [string, E] => pair[1] !== null)
      .map(([name, entry]) => [name, fn(name, entry)]),
  );
}
