// The caller's agent profiles (agent-profiles.ts): list (seeding one from the settings the first
// time, as OpenHands), read, save, delete, rename and activate, each a write of the settings document
// in the user's turn; and what a start on one runs, or would (its LLM profile's LLM in clear).
import type {
  ActivateAgentProfileResponse,
  AgentProfileDiagnostics,
  AgentProfileInput,
  AgentProfileList,
  AgentProfileMutation,
  StoredAgentProfile,
} from './agent-profile-schemas.js';
import {
  AgentProfileNotFoundError,
  activeAgentProfileId,
  agentProfileById,
  agentProfileDiagnostics,
  agentProfileOf,
  agentProfileSummaries,
  type ProfileSkill,
  renamedAgentProfile,
  SEED_PROFILE_NAME,
  seedAgentProfile,
  storedAgentProfile,
  withAgentProfile,
  withoutAgentProfile,
} from './agent-profiles.js';
import { defaults } from './documents.js';
import { LlmProfileSettings } from './llm-profile-service.js';
import { MAX_PROFILES, type ProfileLLM } from './profile-schemas.js';
import {
  activeProfile,
  ProfileNotFoundError,
  profileOf,
  type SettingsDocument,
  withProfile,
} from './profiles.js';

const agentProfileNotFound = (name: string) =>
  new AgentProfileNotFoundError(`Agent profile '${name}' not found`);

export abstract class AgentProfileSettings extends LlmProfileSettings {
  /**
   * Every agent profile (no secret: they hold none) and the active one's id. With none and no active
   * one, a `default` profile is made from the settings first and made active (OpenHands' migration
   * on first use); so is a `default` LLM profile from the settings' LLM when no LLM profile is active
   * and the settings have a key or base URL of their own, so the seeded profile's reference resolves.
   */
  async listAgentProfiles(userId: string): Promise<AgentProfileList> {
    const stored = (await this.read(userId)) ?? defaults();
    const doc = needsSeed(stored) ? await this.serialize(userId, () => this.seed(userId)) : stored;
    return { profiles: agentProfileSummaries(doc), active_agent_profile_id: activeAgentProfileId(doc) };
  }

  private async seed(userId: string): Promise<SettingsDocument> {
    let doc = (await this.read(userId)) ?? defaults();
    if (!needsSeed(doc)) return doc;
    let llmProfile = activeProfile(doc);
    if (llmProfile === null) {
      llmProfile = SEED_PROFILE_NAME;
      const configured = doc.llm_model && (doc.llm_api_key || doc.llm_base_url);
      const free = Object.keys(doc.llm_profiles ?? {}).length < MAX_PROFILES;
      if (configured && free && !profileOf(doc, llmProfile))
        doc = withProfile(doc, llmProfile, {
          model: doc.llm_model as string,
          api_key: doc.llm_api_key ?? null,
          base_url: doc.llm_base_url ?? null,
        });
    }
    const profile = seedAgentProfile(doc, llmProfile);
    doc = { ...withAgentProfile(doc, profile), active_agent_profile_id: profile.id };
    await this.write(userId, doc);
    return doc;
  }

  async agentProfile(userId: string, name: string): Promise<{ name: string; profile: StoredAgentProfile }> {
    const profile = agentProfileOf((await this.read(userId)) ?? defaults(), name);
    if (!profile) throw agentProfileNotFound(name);
    return { name, profile };
  }

  /**
   * Saves a profile under `name`, replacing its namesake (whose id it keeps, one revision on); a new
   * one gets a new id. InvalidSettingsError for what agentd cannot run; ProfileConflictError past the limit.
   */
  async saveAgentProfile(
    userId: string,
    name: string,
    input: AgentProfileInput,
  ): Promise<AgentProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const profile = storedAgentProfile(input, name, agentProfileOf(doc, name));
      await this.write(userId, withAgentProfile(doc, profile));
      return { name, message: `Agent profile '${name}' saved` };
    });
  }

  /** Deletes a profile (none of that name is no error, as OpenHands); the pointer goes with it. */
  async deleteAgentProfile(userId: string, name: string): Promise<AgentProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = await this.read(userId);
      const next = doc && withoutAgentProfile(doc, name);
      if (next && next !== doc) await this.write(userId, next);
      return { name, message: `Agent profile '${name}' deleted` };
    });
  }

  /** Renames a profile; its id stays (AgentProfileNotFoundError, ProfileConflictError for a taken name). */
  async renameAgentProfile(userId: string, from: string, to: string): Promise<AgentProfileMutation> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      const next = renamedAgentProfile(doc, from, to);
      if (next !== doc) await this.write(userId, next);
      const message =
        from === to
          ? `Agent profile '${from}' unchanged (same name)`
          : `Agent profile '${from}' renamed to '${to}'`;
      return { name: to, message };
    });
  }

  /** Makes the profile of that id the active one; the settings stay as they are (OpenHands' contract). */
  async activateAgentProfile(userId: string, id: string): Promise<ActivateAgentProfileResponse> {
    return this.serialize(userId, async () => {
      const doc = (await this.read(userId)) ?? defaults();
      await this.write(userId, withActiveAgentProfile(doc, id));
      return { id, message: `Agent profile '${id}' activated`, agent_settings_applied: false };
    });
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
}

/** The document with the pointer on the profile of that id (null: none); AgentProfileNotFoundError. */
export function withActiveAgentProfile(doc: SettingsDocument, id: string | null): SettingsDocument {
  if (id !== null && !agentProfileById(doc, id))
    throw new AgentProfileNotFoundError(`Agent profile with id '${id}' not found`);
  return { ...doc, active_agent_profile_id: id };
}

/** OpenHands seeds on a list that finds no profile and no pointer. */
const needsSeed = (doc: SettingsDocument) =>
  Object.keys(doc.agent_profiles ?? {}).length === 0 && (doc.active_agent_profile_id ?? null) === null;
