// Per-user settings. Secrets are sealed (SecretBox, bound to the user) before the document reaches
// the store; GET's projection hides them; getEffective opens them for the agent runtime, and
// secretValue / view('plaintext') for the callers the routes let ask (secret exposure enabled). The
// layers below: documents.ts (read, write, seal), connection-service.ts (shared keys),
// llm-profile-service.ts (LLM profiles), agent-profile-service.ts (agent profiles).
import { mapOAuthSecrets, type OAuthStateStore } from '../tools/index.js';
import { AgentProfileSettings, withActiveAgentProfile } from './agent-profile-service.js';
import { activeAgentProfileId } from './agent-profiles.js';
import { defaults, type ExposeMode, sealContext } from './documents.js';
import { type McpServerInput, mcpServerOf, withMcpServer, withoutMcpServer } from './mcp-servers.js';
import { mergeProviderTokens, mergeSettings } from './merge.js';
import { InvalidSettingsError, parseSettings } from './parse.js';
import type { ProfileLLM } from './profile-schemas.js';
import {
  activatedProfile,
  activeLlm,
  activeProfile,
  ProfileNotFoundError,
  profileMembers,
  profileOf,
  type SettingsDocument,
  settingsOnly,
} from './profiles.js';
import type { GETSettingsResponse, MCPConfig, ProviderToken, Settings } from './schemas.js';
import {
  MAX_SECRETS,
  REDACTED,
  type SecretCreateRequest,
  type SecretItem,
  type SettingsUpdateRequest,
} from './sdk-schemas.js';
import { applyDiffs, keyUpdate, sdkMembers } from './sdk-view.js';
import { SecretBox } from './secret-box.js';
import { mapSecrets } from './secret-fields.js';

/** GET /api/settings: the web UI's flat members and the SDK's together (see sdk-schemas.ts). */
export type SettingsView = GETSettingsResponse & ReturnType<typeof sdkMembers>;

/**
 * Settings with every secret in clear. For the runtime (LLM, MCP, git); never send it to a client.
 * `active_llm`: the active profile's whole LLM while the settings' LLM is still the one its
 * activation wrote (see settingsLlm).
 */
export type EffectiveSettings = Settings & { active_llm?: ProfileLLM };

export class SettingsService extends AgentProfileSettings {
  /** The web UI's flat members: no secret, only the *_set flags. Null when nothing is stored. */
  async get(userId: string): Promise<GETSettingsResponse | null> {
    const sealed = await this.read(userId);
    return sealed ? flatView(settingsOnly(sealed)) : null;
  }

  /**
   * What GET /api/settings answers, stored or not (the defaults before the first write): the flat
   * members (secrets null) and the SDK's, whose secrets are shown as `mode` says. `plaintext`
   * opens them (SecretKeyError when one cannot be opened); the route decides who may ask.
   */
  async view(userId: string, mode: ExposeMode): Promise<SettingsView> {
    return this.viewOf(userId, (await this.read(userId)) ?? defaults(), mode);
  }

  /**
   * OpenHands' GET /api/v1/users/me: the view with the user's id, and the flat LLM and search keys as
   * OpenHands shows them there: masked when set, null when not; the LLM key in clear in `plaintext`.
   */
  async userInfo(userId: string, mode: ExposeMode): Promise<SettingsView & { id: string }> {
    const view = await this.view(userId, mode);
    const masked = (set: boolean) => (set ? REDACTED : null);
    const llmKey = mode === 'plaintext' ? (view.agent_settings.llm.api_key as string | null) : null;
    return {
      ...view,
      id: userId,
      llm_api_key: llmKey ?? masked(view.llm_api_key_set),
      search_api_key: masked(view.search_api_key_set),
    };
  }

  /**
   * PATCH /api/settings: the diffs merged into the stored record (see sdk-view.ts for which
   * members and how an api_key is read). Answers the new view, secrets redacted.
   */
  async patch(userId: string, request: SettingsUpdateRequest): Promise<SettingsView> {
    return this.serialize(userId, async () => {
      let next: SettingsDocument = applyDiffs((await this.read(userId)) ?? defaults(), request);
      const profile = request.active_profile;
      // A profile named without an LLM diff brings its LLM, as its activation does (OpenHands).
      if (typeof profile === 'string' && request.agent_settings_diff?.llm === undefined)
        next = activatedProfile(next, profile);
      else if (profile !== undefined) {
        if (profile !== null && !profileOf(next, profile)) throw new ProfileNotFoundError(profile);
        next.active_profile = profile;
      }
      if (request.active_agent_profile_id !== undefined)
        next = withActiveAgentProfile(next, request.active_agent_profile_id);
      const key = keyUpdate(request.agent_settings_diff?.llm?.api_key, SecretBox.isSealed);
      if (key.kind === 'clear') next.llm_api_key = null;
      if (key.kind === 'set') next.llm_api_key = this.box.encrypt(key.plaintext, sealContext(userId));
      await this.write(userId, next);
      return this.viewOf(userId, next, 'redacted');
    });
  }

  /**
   * Writes one MCP server of the settings, by its key in the SDK's map (mcp-servers.ts): `change` gets
   * the server as GET shows it (its key sealed; null when there is none) and answers the one to keep,
   * or null to remove it; what it throws (a 404, a 409) leaves everything as it was. A bearer key in
   * clear is sealed, `**********` keeps the stored one. Answers the new view, secrets redacted.
   */
  async changeMcpServer(
    userId: string,
    key: string,
    change: (current: Record<string, unknown> | null) => McpServerInput | null,
  ): Promise<SettingsView> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const config = doc.mcp_config ?? {};
      const server = change(mcpServerOf(config, key));
      const mcp_config =
        server === null
          ? withoutMcpServer(config, key)
          : withMcpServer(config, key, server, this.sealer(userId), []);
      const next = { ...doc, mcp_config };
      await this.write(userId, next);
      return this.viewOf(userId, next, 'redacted');
    });
  }

  /**
   * Where a saved server's OAuth state is kept (OAuthStateStore): its entry in the user's mcp_config
   * (the first OAuth server of that url, as OpenHands finds it), read and written in the user's turn;
   * a server no longer there reads as null and is not written.
   */
  mcpOAuthStore(userId: string, url: string): OAuthStateStore {
    const find = (config: MCPConfig | null | undefined) =>
      [...(config?.sse_servers ?? []), ...(config?.shttp_servers ?? [])].find(
        (s) => s.url === url && s.oauth,
      );
    return {
      id: `settings:${url}`,
      update: (change) =>
        this.serialize(userId, async () => {
          const doc = await this.read(userId);
          const server = find(doc?.mcp_config);
          const open = (value: string, path: string) => this.open(userId, value, path);
          const stored = server?.oauth ? (mapOAuthSecrets(server.oauth, open).state ?? {}) : null;
          const next = await change(stored);
          if (!next || !doc || !server?.oauth) return;
          const seal = this.sealer(userId);
          server.oauth = { ...server.oauth, state: mapOAuthSecrets({ state: next }, seal).state ?? null };
          await this.write(userId, doc);
        }),
    };
  }

  /** The user's custom secrets, names and descriptions only. */
  async listSecrets(userId: string): Promise<SecretItem[]> {
    const stored = (await this.read(userId))?.secrets_store?.custom_secrets ?? {};
    return Object.entries(stored)
      .filter(([, entry]) => entry?.secret)
      .map(([name, entry]) => ({ name, description: entry?.description ?? null }));
  }

  /** Creates or replaces one custom secret (sealed). More than MAX_SECRETS is an InvalidSettingsError. */
  async putSecret(userId: string, secret: SecretCreateRequest): Promise<SecretItem> {
    return (await this.writeSecret(userId, secret, true))!;
  }

  /** Creates one custom secret (sealed); null, changing nothing, when one of that name exists. */
  createSecret(userId: string, secret: SecretCreateRequest): Promise<SecretItem | null> {
    return this.writeSecret(userId, secret, false);
  }

  private async writeSecret(
    userId: string,
    secret: SecretCreateRequest,
    replace: boolean,
  ): Promise<SecretItem | null> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      // A Map: names are the client's (the pattern already rules out `__proto__`, this says so twice).
      const entries = new Map(Object.entries(doc.secrets_store?.custom_secrets ?? {}));
      if (entries.get(secret.name)?.secret && !replace) return null;
      if (!entries.has(secret.name) && entries.size >= MAX_SECRETS) {
        throw new InvalidSettingsError([
          { loc: ['name'], msg: `At most ${MAX_SECRETS} secrets per user`, type: 'too_many_secrets' },
        ]);
      }
      const description = secret.description ?? null;
      entries.set(secret.name, { secret: this.box.encrypt(secret.value, sealContext(userId)), description });
      doc.secrets_store = { ...doc.secrets_store, custom_secrets: Object.fromEntries(entries) };
      await this.write(userId, doc);
      return { name: secret.name, description };
    });
  }

  /**
   * Renames one custom secret and sets its description, keeping its value (OpenHands' PUT
   * /api/secrets/{id}): `missing` when there is none by `name`, `taken` when `change.name` is another's.
   */
  async renameSecret(
    userId: string,
    name: string,
    change: { name: string; description?: string | null },
  ): Promise<'renamed' | 'missing' | 'taken'> {
    return this.serialize(userId, async () => {
      const doc = await this.read(userId);
      const entries = new Map(Object.entries(doc?.secrets_store?.custom_secrets ?? {}));
      const current = entries.get(name);
      if (!doc || !current?.secret) return 'missing';
      if (change.name !== name && entries.get(change.name)?.secret) return 'taken';
      entries.delete(name);
      entries.set(change.name, { secret: current.secret, description: change.description ?? null });
      doc.secrets_store = { ...doc.secrets_store, custom_secrets: Object.fromEntries(entries) };
      await this.write(userId, doc);
      return 'renamed';
    });
  }

  /**
   * Replaces the git provider tokens (OpenHands' /api/add-git-providers): the providers given are
   * merged as a POST of the settings merges them (a blank token keeps the stored one); a provider left
   * out is gone.
   */
  async setProviderTokens(userId: string, tokens: Record<string, ProviderToken>): Promise<void> {
    await this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const stored = doc.secrets_store?.provider_tokens ?? {};
      const given = Object.entries(stored).filter(([provider]) => Object.hasOwn(tokens, provider));
      const provider_tokens = mergeProviderTokens(Object.fromEntries(given), tokens, this.sealer(userId));
      doc.secrets_store = { ...doc.secrets_store, provider_tokens };
      await this.write(userId, doc);
    });
  }

  /** One custom secret in clear, or null when there is none by that name. Throws SecretKeyError. */
  async secretValue(userId: string, name: string): Promise<string | null> {
    const stored = (await this.read(userId))?.secrets_store?.custom_secrets ?? {};
    const sealed = Object.hasOwn(stored, name) ? stored[name]?.secret : null;
    if (!sealed) return null;
    return this.open(userId, sealed, `secrets_store.custom_secrets.${name}.secret`);
  }

  /** Removes one custom secret; false when there was none by that name. */
  async deleteSecret(userId: string, name: string): Promise<boolean> {
    return this.serialize(userId, async () => {
      const doc = await this.read(userId);
      const entries = new Map(Object.entries(doc?.secrets_store?.custom_secrets ?? {}));
      if (!doc || !entries.get(name)?.secret) return false;
      entries.delete(name);
      doc.secrets_store = { ...doc.secrets_store, custom_secrets: Object.fromEntries(entries) };
      await this.write(userId, doc);
      return true;
    });
  }

  private viewOf(userId: string, doc: SettingsDocument, mode: ExposeMode): SettingsView {
    const sealed = settingsOnly(doc);
    const shown =
      mode === 'plaintext'
        ? mapSecrets(sealed, (value, path) => this.open(userId, value, path))
        : mode === 'encrypted'
          ? sealed
          : mapSecrets(sealed, () => REDACTED);
    return {
      ...flatView(sealed),
      ...sdkMembers(shown, Boolean(sealed.llm_api_key), activeProfile(doc), activeAgentProfileId(doc)),
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
    await this.serialize(userId, async () => {
      const stored = await this.read(userId);
      const context = sealContext(userId);
      const seal = (plaintext: string) => this.box.encrypt(plaintext, context);
      const next = mergeSettings(stored && settingsOnly(stored), parsed.value, seal, this.sealer(userId));
      // The profiles are not POST's: they are carried over as they are.
      await this.write(userId, { ...next, ...profileMembers(stored) });
    });
  }

  /**
   * The stored settings with secrets in clear, or null. Throws SecretKeyError (naming the member,
   * never the value) when a secret cannot be opened, e.g. after the secret key changed.
   */
  async getEffective(userId: string): Promise<EffectiveSettings | null> {
    const sealed = await this.read(userId);
    if (!sealed) return null;
    const effective = mapSecrets(settingsOnly(sealed), (value, path) => this.open(userId, value, path));
    const active = activeLlm(sealed);
    return active
      ? { ...effective, active_llm: this.openProfile(userId, active.name, active.llm) }
      : effective;
  }
}

/** The web UI's flat members of a (sealed) record: secrets null, the *_set flags say what is set. */
function flatView(sealed: Settings): GETSettingsResponse {
  const providers: Record<string, string | null> = {};
  for (const [name, t] of Object.entries(sealed.secrets_store?.provider_tokens ?? {})) {
    if (t && (t.token || t.user_id)) providers[name] = t.host || null; // an empty host is none
  }
  return {
    ...mapSecrets(sealed, () => null),
    secrets_store: { provider_tokens: {} },
    llm_api_key_set: Boolean(sealed.llm_api_key),
    search_api_key_set: Boolean(sealed.search_api_key),
    provider_tokens_set: providers,
  };
}
