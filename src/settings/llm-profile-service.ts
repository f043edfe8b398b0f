// The caller's LLM profiles (profiles.ts, OpenHands' /api/profiles) as a layer of the settings
// service: list, read (secrets as asked), save, delete, rename, activate, and a profile's LLM in clear
// to run on. Each write is one of the settings document, in the user's turn.
import { mapLlmSecrets } from '../llm/index.js';
import { agentProfilesOn, withLlmRefRenamed } from './agent-profiles.js';
import { ProviderConnectionSettings } from './connection-service.js';
import { defaults, type ExposeMode } from './documents.js';
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
  checkProfileLlm,
  linkOf,
  ProfileConflictError,
  ProfileNotFoundError,
  profileList,
  profileOf,
  renamedProfile,
  type SettingsDocument,
  storedProfile,
  withoutProfile,
  withProfile,
} from './profiles.js';
import { resolvedLlm } from './provider-connections.js';
import { REDACTED } from './sdk-schemas.js';

export abstract class LlmProfileSettings extends ProviderConnectionSettings {
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

  /** A profile's LLM in `doc` as it runs, its secrets in clear (ProfileNotFoundError; SecretKeyError). */
  protected runnableLlm(userId: string, doc: SettingsDocument, name: string): ProfileLLM {
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

  protected openProfile(userId: string, name: string, sealed: ProfileLLM): ProfileLLM {
    return mapLlmSecrets(sealed, (value) => this.open(userId, value, `llm_profiles.${name}`));
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
}
