// Per-user settings. Secrets are sealed (SecretBox, bound to the user) before the document reaches
// the store; GET's projection hides them; getEffective opens them for the agent runtime, and
// secretValue / view('plaintext') for the callers the routes let ask (secret exposure enabled).
import { mapLlmSecrets } from '../llm/index.js';
import type { AgentProfileDiagnostics } from './agent-profile-schemas.js';
import {
  AgentProfileSettings,
  agentProfileNotFound,
  withActiveAgentProfile,
} from './agent-profile-service.js';
import {
  AgentProfileNotFoundError,
  activeAgentProfileId,
  agentProfileById,
  agentProfileDiagnostics,
  agentProfileOf,
  agentProfilesOn,
  type ProfileSkill,
  withLlmRefRenamed,
} from './agent-profiles.js';
import { defaults, sealContext } from './documents.js';
import { type McpServerInput, mcpServerOf, withMcpServer, withoutMcpServer } from './mcp-servers.js';
import { mergeSettings } from './merge.js';
import { InvalidSettingsError, parseSettings } from './parse.js';
import type {
  ActivateProfileResponse,
  ProfileDetail,
  ProfileList,
  ProfileLLM,
  ProfileMutation,
  SaveProfileRequest,
} from './profile-schemas.js';
import {
  activatedProfile,
  activeLlm,
  activeProfile,
  checkProfileLlm,
  linkOf,
  ProfileConflictError,
  ProfileNotFoundError,
  profileList,
  profileMembers,
  profileOf,
  renamedProfile,
  type SettingsDocument,
  settingsOnly,
  storedProfile,
  withoutProfile,
  withProfile,
} from './profiles.js';
import { resolvedLlm } from './provider-connections.js';
import type { GETSettingsResponse, Settings } from './schemas.js';
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

/** How GET /api/settings shows secrets: redacted (no header), sealed (`encrypted`), or in clear. */
export type ExposeMode = 'redacted' | 'encrypted' | 'plaintext';

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

  /** The user's custom secrets, names and descriptions only. */
  async listSecrets(userId: string): Promise<SecretItem[]> {
    const stored = (await this.read(userId))?.secrets_store?.custom_secrets ?? {};
    return Object.entries(stored)
      .filter(([, entry]) => entry?.secret)
      .map(([name, entry]) => ({ name, description: entry?.description ?? null }));
  }

  /** Creates or replaces one custom secret (sealed). More than MAX_SECRETS is an InvalidSettingsError. */
  async putSecret(userId: string, secret: SecretCreateRequest): Promise<SecretItem> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      // A Map: names are the client's (the pattern already rules out `__proto__`, this says so twice).
      const entries = new Map(Object.entries(doc.secrets_store?.custom_secrets ?? {}));
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

  /** GET /api/profiles: every profile (no secret), and the active one. */
  async listProfiles(userId: string): Promise<ProfileList> {
    return profileList((await this.read(userId)) ?? {});
  }

  /** One profile, its secrets shown as `mode` says (null api_key when redacted); ProfileNotFoundError. */
  async profile(userId: string, name: string, mode: ExposeMode): Promise<ProfileDetail> {
    const { doc, stored } = await this.storedProfile(userId, name);
    const config =
      mode === 'plaintext'
        ? this.openProfile(userId, name, stored)
        : mode === 'encrypted'
          ? stored
          : { ...mapLlmSecrets(stored, () => REDACTED), api_key: null };
    return { name, config, api_key_set: linkOf(doc, stored).api_key_set };
  }

  /**
   * A profile's LLM with its secrets in clear, to run on: with its provider connection's key and base
   * URL when it names one (ProfileNotFoundError; SecretKeyError; InvalidSettingsError when that is gone).
   */
  async profileLlm(userId: string, name: string): Promise<ProfileLLM> {
    return this.runnableLlm(userId, (await this.read(userId)) ?? defaults(), name);
  }

  private runnableLlm(userId: string, doc: SettingsDocument, name: string): ProfileLLM {
    const stored = profileOf(doc, name);
    if (!stored) throw new ProfileNotFoundError(name);
    return this.openProfile(userId, name, resolvedLlm(doc, name, stored));
  }

  private async storedProfile(
    userId: string,
    name: string,
  ): Promise<{ doc: SettingsDocument; stored: ProfileLLM }> {
    const doc = (await this.read(userId)) ?? defaults();
    const stored = profileOf(doc, name);
    if (!stored) throw new ProfileNotFoundError(name);
    return { doc, stored };
  }

  private openProfile(userId: string, name: string, sealed: ProfileLLM): ProfileLLM {
    return mapLlmSecrets(sealed, (value) => this.open(userId, value, `llm_profiles.${name}`));
  }

  /**
   * What a start on the agent profile of that id runs: the profile, its LLM profile's LLM in clear
   * (with its connection's key), and the settings' MCP servers it chooses from (sealed).
   * AgentProfileNotFoundError; ProfileNotFoundError when its LLM profile is gone.
   */
  async agentProfileLaunch(userId: string, id: string) {
    const doc = (await this.read(userId)) ?? defaults();
    const profile = agentProfileById(doc, id);
    if (!profile) throw new AgentProfileNotFoundError(`Agent profile with id '${id}' not found`);
    return {
      profile,
      llm: this.runnableLlm(userId, doc, profile.llm_profile_ref),
      mcp_config: doc.mcp_config ?? null,
    };
  }

  /** OpenHands' /materialize: what a start on the profile would resolve, without starting (agent-profiles.ts). */
  async materializeAgentProfile(
    userId: string,
    name: string,
    skills: ProfileSkill[],
  ): Promise<AgentProfileDiagnostics> {
    const doc = (await this.read(userId)) ?? defaults();
    const profile = agentProfileOf(doc, name);
    if (!profile) throw agentProfileNotFound(name);
    let llm: ProfileLLM | null = null;
    let problem: string | null = null;
    try {
      llm = this.runnableLlm(userId, doc, profile.llm_profile_ref);
    } catch (error) {
      problem =
        error instanceof ProfileNotFoundError
          ? `LLM profile '${profile.llm_profile_ref}' not found`
          : `Could not load LLM profile '${profile.llm_profile_ref}': ${(error as Error).message}`;
    }
    return agentProfileDiagnostics(profile, doc.mcp_config ?? null, llm, problem, skills);
  }

  /**
   * Saves (or replaces) a profile. Its model must route somewhere (InvalidSettingsError at `llm`);
   * past MAX_PROFILES a new one is a ProfileConflictError.
   */
  async saveProfile(userId: string, name: string, request: SaveProfileRequest): Promise<ProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const llm = storedProfile(
        request.llm,
        profileOf(doc, name),
        request.include_secrets ?? true,
        this.sealer(userId),
      );
      // Checked as it will run: with its connection's base URL when it names one (one not there is refused).
      checkProfileLlm(resolvedLlm(doc, name, llm));
      await this.write(userId, withProfile(doc, name, llm));
      return { name, message: `Profile '${name}' saved` };
    });
  }

  /**
   * An LLM as saving it as `name` would read it (a redacted or sealed secret echoed back is the stored
   * one), with its secrets in clear: what a pre-flight check calls. Nothing is stored.
   */
  async unsavedProfileLlm(userId: string, name: string, llm: ProfileLLM): Promise<ProfileLLM> {
    const doc = (await this.read(userId)) ?? defaults();
    const draft = storedProfile(llm, profileOf(doc, name), true, this.sealer(userId));
    return this.openProfile(userId, name, resolvedLlm(doc, name, draft));
  }

  /**
   * Deletes a profile (none by that name is no error, as in OpenHands); it is no longer active. One an
   * agent profile runs on is a ProfileConflictError naming them.
   */
  async deleteProfile(userId: string, name: string): Promise<ProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = await this.read(userId);
      const users = doc ? agentProfilesOn(doc, name) : [];
      if (users.length > 0)
        throw new ProfileConflictError(
          `LLM profile '${name}' is referenced by ${users.length} agent profile(s): ${users.join(', ')}`,
        );
      if (doc && profileOf(doc, name)) await this.write(userId, withoutProfile(doc, name));
      return { name, message: `Profile '${name}' deleted` };
    });
  }

  /**
   * Renames a profile (ProfileNotFoundError, ProfileConflictError when `to` is taken); the active
   * profile and the agent profiles that run on it follow.
   */
  async renameProfile(userId: string, from: string, to: string): Promise<ProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const next = withLlmRefRenamed(renamedProfile(doc, from, to), from, to);
      if (next !== doc) await this.write(userId, next);
      const message =
        from === to ? `Profile '${from}' unchanged (same name)` : `Profile '${from}' renamed to '${to}'`;
      return { name: to, message };
    });
  }

  /** Makes a profile the settings' LLM and the active profile (ProfileNotFoundError). */
  async activateProfile(userId: string, name: string): Promise<ActivateProfileResponse> {
    return this.serialize(userId, async () => {
      await this.write(userId, activatedProfile((await this.read(userId)) ?? defaults(), name));
      return {
        name,
        message: `Profile '${name}' activated and applied to current settings`,
        llm_applied: true,
      };
    });
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
      const next = mergeSettings(stored && settingsOnly(stored), parsed.value, seal);
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
