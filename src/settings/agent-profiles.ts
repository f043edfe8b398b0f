// Agent profiles inside a user's settings document (`agent_profiles`: name → profile, and the
// `active_agent_profile_id` pointer), beside the LLM profiles they name: deleting an LLM profile an
// agent profile names is refused, renaming one carries the new name into them, each in one write.
// Resolving one (what a start on it runs, what /materialize reports) is agentProfileSettings.
import { randomUUID } from 'node:crypto';
import { mapLlmSecrets } from '../llm/index.js';
import {
  AGENT_PROFILE_SCHEMA_VERSION,
  type AgentProfileDiagnostics,
  type AgentProfileInfo,
  type AgentProfileInput,
  MAX_AGENT_PROFILE_BYTES,
  MAX_AGENT_PROFILES,
  type StoredAgentProfile,
} from './agent-profile-schemas.js';
import { mcpConfigOnly, mcpServersByName } from './mcp-servers.js';
import { InvalidSettingsError } from './parse.js';
import type { ProfileLLM } from './profile-schemas.js';
import { ProfileConflictError, type SettingsDocument } from './profiles.js';
import type { MCPConfig, Settings } from './schemas.js';
import { REDACTED } from './sdk-schemas.js';
import { mapSecrets } from './secret-fields.js';

/** The name of the profile seeded from the settings (OpenHands' SEED_PROFILE_NAME), and of its LLM. */
export const SEED_PROFILE_NAME = 'default';

/** 404: no agent profile of that name (or id). */
export class AgentProfileNotFoundError extends Error {
  override name = 'AgentProfileNotFoundError';
}

/** A skill the agent may be given, as the conversation layer found it (agent/skills.ts). */
export interface ProfileSkill {
  name: string;
  content: string;
  keywords: string[] | null;
}

const profilesOf = (doc: SettingsDocument) => new Map(Object.entries(doc.agent_profiles ?? {}));

export function agentProfileOf(doc: SettingsDocument, name: string): StoredAgentProfile | null {
  const profiles = doc.agent_profiles;
  return profiles && Object.hasOwn(profiles, name) ? (profiles[name] ?? null) : null;
}

export function agentProfileById(doc: SettingsDocument, id: string): StoredAgentProfile | null {
  return [...profilesOf(doc).values()].find((profile) => profile.id === id) ?? null;
}

/** The active pointer; null also when it names a profile no longer there. */
export function activeAgentProfileId(doc: SettingsDocument): string | null {
  const id = doc.active_agent_profile_id ?? null;
  return id !== null && agentProfileById(doc, id) ? id : null;
}

export function agentProfileSummaries(doc: SettingsDocument): AgentProfileInfo[] {
  return [...profilesOf(doc).values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ id, name, agent_kind, revision, llm_profile_ref, mcp_server_refs }) => ({
      id,
      name,
      agent_kind,
      revision,
      llm_profile_ref,
      mcp_server_refs,
    }));
}

/**
 * The profile to store from what a client sent: OpenHands' defaults filled in, the path's name, and
 * the server's identity (a namesake's id and next revision, else a new id at revision 0). What agentd
 * cannot run is an InvalidSettingsError here, not a surprise at the start.
 */
export function storedAgentProfile(
  input: AgentProfileInput,
  name: string,
  previous: StoredAgentProfile | null,
): StoredAgentProfile {
  const verification = {
    critic_enabled: false,
    critic_mode: 'finish_and_message' as const,
    enable_iterative_refinement: false,
    critic_threshold: 0.6,
    max_refinement_iterations: 3,
    critic_server_url: null,
    critic_model_name: null,
    ...input.verification,
  };
  const refused: [string[], string][] = [];
  if (verification.enable_iterative_refinement)
    refused.push([['verification', 'enable_iterative_refinement'], 'agentd has no iterative refinement']);
  for (const member of ['critic_server_url', 'critic_model_name'] as const)
    if (verification[member])
      refused.push([['verification', member], "agentd's critic runs on the agent's LLM: leave it null"]);
  if (refused.length > 0)
    throw new InvalidSettingsError(refused.map(([loc, msg]) => ({ loc, msg, type: 'value_error' })));
  const profile: StoredAgentProfile = {
    schema_version: AGENT_PROFILE_SCHEMA_VERSION,
    id: previous?.id ?? randomUUID(),
    name,
    revision: previous ? previous.revision + 1 : 0,
    agent_kind: 'openhands',
    llm_profile_ref: input.llm_profile_ref,
    mcp_server_refs: input.mcp_server_refs ?? null,
    agent: input.agent ?? 'CodeActAgent',
    tools: input.tools ?? null,
    system_message_suffix: input.system_message_suffix ?? null,
    disabled_skills: input.disabled_skills ?? [],
    condenser: {
      condenser_kind: 'llm_summarizing',
      enabled: true,
      max_size: 240,
      keep_first: 2,
      max_tokens: null,
      minimum_progress: 0.1,
      hard_context_reset_max_retries: 5,
      hard_context_reset_context_scaling: 0.8,
      ...input.condenser,
    },
    verification,
    enable_sub_agents: input.enable_sub_agents ?? false,
    enable_switch_llm_tool: input.enable_switch_llm_tool ?? true,
    tool_concurrency_limit: input.tool_concurrency_limit ?? 1,
  };
  if (Buffer.byteLength(JSON.stringify(profile)) > MAX_AGENT_PROFILE_BYTES)
    throw new InvalidSettingsError([
      {
        loc: [],
        msg: `An agent profile is at most ${MAX_AGENT_PROFILE_BYTES / 1024} KB of JSON`,
        type: 'too_long',
      },
    ]);
  return profile;
}

/**
 * The profile OpenHands seeds on the first list (the settings as they are, as a profile): on the
 * active LLM profile, else on `default`, and every MCP server.
 */
export function seedAgentProfile(doc: SettingsDocument, llmProfile: string): StoredAgentProfile {
  return storedAgentProfile(
    {
      llm_profile_ref: llmProfile,
      ...(doc.agent ? { agent: doc.agent } : {}),
      condenser: {
        enabled: doc.enable_default_condenser ?? true,
        ...(typeof doc.condenser_max_size === 'number' ? { max_size: doc.condenser_max_size } : {}),
      },
    },
    SEED_PROFILE_NAME,
    null,
  );
}

/** The document with `profile` saved under its name (past MAX_AGENT_PROFILES a new one is a 409). */
export function withAgentProfile(doc: SettingsDocument, profile: StoredAgentProfile): SettingsDocument {
  const profiles = profilesOf(doc);
  if (!profiles.has(profile.name) && profiles.size >= MAX_AGENT_PROFILES)
    throw new ProfileConflictError(
      `Agent profile limit reached (${MAX_AGENT_PROFILES}). Delete a profile before saving a new one.`,
    );
  profiles.set(profile.name, profile);
  return { ...doc, agent_profiles: Object.fromEntries(profiles) };
}

/** The document without the profile `name`; the pointer is cleared when it was that profile's. */
export function withoutAgentProfile(doc: SettingsDocument, name: string): SettingsDocument {
  const gone = agentProfileOf(doc, name);
  if (!gone) return doc;
  const profiles = profilesOf(doc);
  profiles.delete(name);
  const pointer = doc.active_agent_profile_id === gone.id ? null : (doc.active_agent_profile_id ?? null);
  return { ...doc, agent_profiles: Object.fromEntries(profiles), active_agent_profile_id: pointer };
}

/** The document with profile `from` named `to`: its id, and so the pointer, stay. */
export function renamedAgentProfile(doc: SettingsDocument, from: string, to: string): SettingsDocument {
  const profile = agentProfileOf(doc, from);
  if (!profile) throw new AgentProfileNotFoundError(`Agent profile '${from}' not found`);
  if (from === to) return doc;
  if (agentProfileOf(doc, to)) throw new ProfileConflictError(`Agent profile '${to}' already exists`);
  const next = [...profilesOf(doc)].map(([n, p]): [string, StoredAgentProfile] =>
    n === from ? [to, { ...p, name: to }] : [n, p],
  );
  return { ...doc, agent_profiles: Object.fromEntries(next) };
}

/** The agent profiles that name the LLM profile `llmProfile`. */
export function agentProfilesOn(doc: SettingsDocument, llmProfile: string): string[] {
  return [...profilesOf(doc).values()].filter((p) => p.llm_profile_ref === llmProfile).map((p) => p.name);
}

/** The document with every reference to the LLM profile `from` moved to `to` (its rename). */
export function withLlmRefRenamed(doc: SettingsDocument, from: string, to: string): SettingsDocument {
  if (from === to || agentProfilesOn(doc, from).length === 0) return doc;
  const next = [...profilesOf(doc)].map(([n, p]): [string, StoredAgentProfile] => [
    n,
    p.llm_profile_ref === from ? { ...p, llm_profile_ref: to } : p,
  ]);
  return { ...doc, agent_profiles: Object.fromEntries(next) };
}

/** Which of the settings' MCP servers the profile gets (by their keys), and the keys it names that are not there. */
export function mcpSelection(config: MCPConfig | null, refs: string[] | null) {
  const available = Object.keys(mcpServersByName(config));
  if (refs === null) return { keys: available, dangling: [] as string[], config };
  const unique = [...new Set(refs)];
  const keys = unique.filter((ref) => available.includes(ref));
  return { keys, dangling: unique.filter((ref) => !keys.includes(ref)), config: mcpConfigOnly(config, keys) };
}

/** The skills found minus the profile's disabled ones (the last of a name wins, as OpenHands). */
function enabledSkills(profile: StoredAgentProfile, skills: ProfileSkill[]): ProfileSkill[] {
  const disabled = new Set(profile.disabled_skills);
  return [...new Map(skills.map((skill) => [skill.name, skill])).values()].filter(
    (s) => !disabled.has(s.name),
  );
}

/**
 * The OpenHands AgentSettings a start on the profile runs (conversation/agent-settings.ts builds the
 * agent from them): its LLM, tools, context (the skills found minus its disabled ones, its suffix),
 * condenser, critic and tool concurrency. MCP servers are not in them: the runtime connects the
 * settings' servers the profile selects (mcpSelection), as for any conversation.
 */
export function agentProfileSettings(profile: StoredAgentProfile, llm: ProfileLLM, skills: ProfileSkill[]) {
  return {
    schema_version: 5,
    agent_kind: 'openhands' as const,
    agent: profile.agent,
    llm,
    tools: profile.tools,
    agent_context: {
      skills: enabledSkills(profile, skills).map(({ name, content, keywords }) => ({
        name,
        content,
        trigger: keywords ? { type: 'keyword', keywords } : null,
      })),
      system_message_suffix: profile.system_message_suffix,
      load_project_skills: true,
      // The workspace's skills, read per conversation, are left out by the same names.
      disabled_skills: profile.disabled_skills,
    },
    condenser: profile.condenser,
    verification: profile.verification,
    enable_sub_agents: profile.enable_sub_agents,
    tool_concurrency_limit: profile.tool_concurrency_limit,
  };
}

/**
 * OpenHands' dry run (/materialize): what a start on the profile would resolve, its dangling
 * references as errors instead of refusals, secrets redacted. `llm` is the LLM profile as it would
 * run (null, with `llmError`, when it cannot); `mcp` the settings' servers (sealed).
 */
export function agentProfileDiagnostics(
  profile: StoredAgentProfile,
  mcp: MCPConfig | null,
  llm: ProfileLLM | null,
  llmError: string | null,
  skills: ProfileSkill[],
): AgentProfileDiagnostics {
  const selection = mcpSelection(mcp, profile.mcp_server_refs);
  const errors: string[] = [];
  if (selection.dangling.length > 0)
    errors.push(`MCP server(s) not configured: ${selection.dangling.join(', ')}`);
  if (llmError) errors.push(llmError);
  const valid = errors.length === 0 && llm !== null;
  const redacted = () => REDACTED;
  const resolved = () => {
    const settings = agentProfileSettings(profile, mapLlmSecrets(llm as ProfileLLM, redacted), skills);
    const servers = mapSecrets({ mcp_config: selection.config } as Settings, redacted).mcp_config ?? null;
    return { ...settings, mcp_config: mcpServersByName(servers) };
  };
  return {
    agent_kind: profile.agent_kind,
    valid,
    errors,
    llm_profile_ref: profile.llm_profile_ref,
    llm_profile_resolved: llm !== null,
    llm_api_key_set: Boolean(llm?.api_key),
    mcp_server_refs: profile.mcp_server_refs,
    resolved_mcp_config_keys: selection.keys,
    dangling_mcp_server_refs: selection.dangling,
    disabled_skills: profile.disabled_skills,
    resolved_skills: enabledSkills(profile, skills).map((skill) => skill.name),
    acp_api_key_secret_name: null,
    acp_base_url_secret_name: null,
    acp_file_secret_names: [],
    resolved_settings: valid ? resolved() : null,
  };
}
