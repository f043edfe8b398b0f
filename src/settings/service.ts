// Per-user settings. Secrets are sealed (SecretBox, bound to the user) before the document reaches
// the store; GET's projection hides them; only getEffective opens them, for the agent runtime.
import { Value } from 'typebox/value';
import type { SettingsStore } from '../store/index.js';
import { mergeSettings } from './merge.js';
import { complete, InvalidSettingsError, parseSettings } from './parse.js';
import { type GETSettingsResponse, type Settings, StoredSettingsShape } from './schemas.js';
import { type SecretBox, SecretKeyError } from './secret-box.js';
import { mapSecrets } from './secret-fields.js';

/** Settings with every secret in clear. For the runtime (LLM, MCP, git); never send it to a client. */
export type EffectiveSettings = Settings;

/** The additional authenticated data of a user's sealed settings: a value copied to another user fails. */
const sealContext = (userId: string) => `agentd-settings:${userId}`;

export class SettingsService {
  constructor(
    private readonly documents: SettingsStore,
    private readonly box: SecretBox,
  ) {}

  /** What GET /api/settings answers: no secret, only the *_set flags. Null when nothing is stored. */
  async get(userId: string): Promise<GETSettingsResponse | null> {
    const sealed = await this.read(userId);
    if (!sealed) return null;
    const providers: Record<string, string | null> = {};
    for (const [name, t] of Object.entries(sealed.secrets_store?.provider_tokens ?? {})) {
      if (t && (t.token || t.user_id)) providers[name] = t.host ?? null;
    }
    return {
      ...mapSecrets(sealed, () => null),
      secrets_store: { provider_tokens: {} },
      llm_api_key_set: Boolean(sealed.llm_api_key),
      search_api_key_set: Boolean(sealed.search_api_key),
      provider_tokens_set: providers,
    };
  }

  /**
   * Stores a POST /api/settings body with OpenHands' semantics (see merge.ts): null keeps the stored
   * LLM key, model, base URL, search key, sandbox key, analytics consent and secrets; every other
   * member is replaced. Throws InvalidSettingsError for a body that is not a Settings record.
   */
  async store(userId: string, body: Settings): Promise<void> {
    const parsed = parseSettings(body);
    if (!parsed.ok) throw new InvalidSettingsError(parsed.errors);
    const stored = await this.read(userId);
    const context = sealContext(userId);
    const next = mergeSettings(stored, parsed.value, (plaintext) => this.box.encrypt(plaintext, context));
    await this.documents.put(userId, JSON.stringify(next));
  }

  /**
   * The stored settings with secrets in clear, or null. Throws SecretKeyError (naming the member,
   * never the value) when a secret cannot be opened, e.g. after the secret key changed.
   */
  async getEffective(userId: string): Promise<EffectiveSettings | null> {
    const sealed = await this.read(userId);
    if (!sealed) return null;
    const context = sealContext(userId);
    return mapSecrets(sealed, (value, path) => {
      try {
        return this.box.decrypt(value, context);
      } catch (error) {
        throw new SecretKeyError(`settings of ${userId}, ${path}: ${(error as Error).message}`);
      }
    });
  }

  /** The stored (sealed) document, projected on today's members with their defaults. */
  private async read(userId: string): Promise<Settings | null> {
    const text = await this.documents.get(userId);
    if (text === null) return null;
    return complete(Value.Clean(StoredSettingsShape, JSON.parse(text)) as Settings);
  }
}
