// Per-user settings with OpenHands' POST semantics: a null LLM key / model / base URL / search key /
// analytics consent (and, in agentd, any null secret) keeps the stored value; every other member is
// replaced wholesale. Secrets are sealed before the document reaches the store and never returned.
import type { SettingsStore } from '../store/index.js';
import { type GETSettingsResponse, SETTINGS_KEYS, type Settings } from './schemas.js';
import type { SecretBox } from './secret-box.js';

type ProviderTokens = Record<
  string,
  { token?: string | null; host?: string | null; user_id?: string | null }
>;
type CustomSecrets = Record<string, { secret?: string | null; description?: string | null }>;

/** Members whose null or absent value keeps what is stored. */
const KEEP_IF_NULL = [
  'llm_api_key',
  'llm_model',
  'llm_base_url',
  'search_api_key',
  'sandbox_api_key',
  'user_consents_to_analytics',
] as const;
const SECRET_KEYS = ['llm_api_key', 'search_api_key', 'sandbox_api_key'] as const;

const DEFAULTS: Partial<Settings> = {
  enable_default_condenser: true,
  enable_sound_notifications: false,
  enable_proactive_conversation_starters: true,
  enable_solvability_analysis: true,
};

const blankToNull = (v: string | null | undefined) => (typeof v === 'string' && v.trim() !== '' ? v : null);

export class SettingsService {
  constructor(
    private readonly documents: SettingsStore,
    private readonly box: SecretBox,
  ) {}

  /** The stored settings with secrets in clear, for the agent runtime only; never serialize to a client. */
  async getEffective(userId: string): Promise<Settings | null> {
    const document = await this.documents.get(userId);
    return document === null ? null : this.open(JSON.parse(document) as Settings);
  }

  /** What GET /api/settings answers: secrets replaced by flags. Null when nothing is stored. */
  async get(userId: string): Promise<GETSettingsResponse | null> {
    const settings = await this.getEffective(userId);
    if (!settings) return null;
    const tokens = (settings.secrets_store?.provider_tokens ?? {}) as ProviderTokens;
    const providers: Record<string, string | null> = {};
    for (const [provider, t] of Object.entries(tokens))
      if (t.token || t.user_id) providers[provider] = t.host ?? null;
    return {
      ...settings,
      llm_api_key: null,
      search_api_key: null,
      sandbox_api_key: null,
      secrets_store: { provider_tokens: {} },
      llm_api_key_set: Boolean(settings.llm_api_key),
      search_api_key_set: Boolean(settings.search_api_key),
      provider_tokens_set: providers,
    };
  }

  async store(userId: string, body: Settings): Promise<void> {
    const next: Settings = { ...DEFAULTS };
    for (const key of SETTINGS_KEYS)
      if (body[key] !== undefined) (next as Record<string, unknown>)[key] = body[key];
    for (const key of SECRET_KEYS) next[key] = blankToNull(next[key]);
    const stored = await this.getEffective(userId);
    if (stored) {
      for (const key of KEEP_IF_NULL) {
        if (next[key] === null || next[key] === undefined)
          (next as Record<string, unknown>)[key] = stored[key] ?? null;
      }
      next.secrets_store = mergeSecrets(stored.secrets_store, next.secrets_store);
    }
    await this.documents.put(userId, JSON.stringify(this.seal(next)));
  }

  private seal(settings: Settings): Settings {
    return this.mapSecrets(settings, (v) => this.box.encrypt(v));
  }

  private open(settings: Settings): Settings {
    return this.mapSecrets(settings, (v) => this.box.decrypt(v));
  }

  /** Applies fn to every secret value (the three keys, provider tokens, custom secrets). */
  private mapSecrets(settings: Settings, fn: (value: string) => string): Settings {
    const out: Settings = { ...settings };
    for (const key of SECRET_KEYS) {
      const value = out[key];
      if (typeof value === 'string') out[key] = fn(value);
    }
    if (out.secrets_store) {
      const tokens: ProviderTokens = {};
      for (const [name, t] of Object.entries((out.secrets_store.provider_tokens ?? {}) as ProviderTokens)) {
        tokens[name] = { ...t, token: typeof t.token === 'string' ? fn(t.token) : (t.token ?? null) };
      }
      const custom: CustomSecrets = {};
      for (const [name, s] of Object.entries((out.secrets_store.custom_secrets ?? {}) as CustomSecrets)) {
        custom[name] = { ...s, secret: typeof s.secret === 'string' ? fn(s.secret) : (s.secret ?? null) };
      }
      out.secrets_store = { provider_tokens: tokens, custom_secrets: custom };
    }
    return out;
  }
}

/**
 * The new secrets store, with every null or empty value filled from the stored one; when the request
 * leaves the store out, the stored one stays as it is (nothing is lost).
 */
function mergeSecrets(
  stored: Settings['secrets_store'],
  next: Settings['secrets_store'],
): Settings['secrets_store'] {
  if (next === undefined) return stored;
  const oldTokens = (stored?.provider_tokens ?? {}) as ProviderTokens;
  const tokens: ProviderTokens = {};
  for (const [name, t] of Object.entries((next.provider_tokens ?? {}) as ProviderTokens)) {
    tokens[name] = { ...t, token: blankToNull(t.token) ?? oldTokens[name]?.token ?? null };
  }
  const oldCustom = (stored?.custom_secrets ?? {}) as CustomSecrets;
  const custom: CustomSecrets = {};
  for (const [name, s] of Object.entries((next.custom_secrets ?? {}) as CustomSecrets)) {
    custom[name] = { ...s, secret: blankToNull(s.secret) ?? oldCustom[name]?.secret ?? null };
  }
  return { provider_tokens: tokens, custom_secrets: custom };
}
