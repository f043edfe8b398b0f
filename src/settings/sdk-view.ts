// The stored Settings record seen as the OpenHands SDK reads it (agent_settings,
// conversation_settings), and PATCH /api/settings' diffs written back into that record. One record,
// two views: what a PATCH changes, POST's GET members show, and the other way round.

import { mcpServersByName } from './mcp-servers.js';
import type { Settings } from './schemas.js';
import { REDACTED, type SettingsUpdateRequest } from './sdk-schemas.js';

/** OpenHands' AgentSettings / ConversationSettings schema versions (v1.43); the SDK migrates older ones. */
const AGENT_SETTINGS_SCHEMA_VERSION = 5;
const CONVERSATION_SETTINGS_SCHEMA_VERSION = 1;

/**
 * The SDK's members, from a record whose secret strings are already what the caller may see
 * (plaintext, sealed or redacted: the service decides). `llmKeySet` says whether a key is stored,
 * `activeProfile` which LLM profile was activated last (null: none, or it is gone), and
 * `activeAgentProfileId` which agent profile is active.
 */
export function sdkMembers(
  doc: Settings,
  llmKeySet: boolean,
  activeProfile: string | null,
  activeAgentProfileId: string | null,
) {
  const llm: Record<string, unknown> = { api_key: doc.llm_api_key ?? null };
  // The SDK's LLM has its own default model; a null would not validate, so an unset model is left out.
  if (doc.llm_model) llm.model = doc.llm_model;
  if (doc.llm_base_url) llm.base_url = doc.llm_base_url;
  const condenser: Record<string, unknown> = {
    condenser_kind: 'llm_summarizing',
    enabled: doc.enable_default_condenser ?? true,
  };
  if (typeof doc.condenser_max_size === 'number') condenser.max_size = doc.condenser_max_size;
  const agentSettings: Record<string, unknown> = {
    schema_version: AGENT_SETTINGS_SCHEMA_VERSION,
    agent_kind: 'openhands' as const,
    llm,
    condenser,
    mcp_config: mcpServersByName(doc.mcp_config ?? null),
    enable_sub_agents: doc.enable_sub_agents ?? false,
  };
  if (doc.agent) agentSettings.agent = doc.agent;
  const conversation: Record<string, unknown> = {
    schema_version: CONVERSATION_SETTINGS_SCHEMA_VERSION,
    // The SDK knows 'llm' or none; the web UI's other analyzers have no SDK name.
    security_analyzer: doc.security_analyzer === 'llm' ? 'llm' : null,
  };
  if (typeof doc.max_iterations === 'number') conversation.max_iterations = doc.max_iterations;
  if (typeof doc.confirmation_mode === 'boolean') conversation.confirmation_mode = doc.confirmation_mode;
  return {
    agent_settings: agentSettings as {
      schema_version: number;
      agent_kind: 'openhands';
      llm: Record<string, unknown>;
      mcp_config: Record<string, Record<string, unknown>>;
    },
    conversation_settings: conversation,
    llm_api_key_is_set: llmKeySet,
    active_profile: activeProfile,
    active_agent_profile_id: activeAgentProfileId,
    misc_settings: {},
  };
}

/** What to store for a new LLM key: null clears it, undefined keeps the stored one. */
export type KeyUpdate = { kind: 'keep' } | { kind: 'clear' } | { kind: 'set'; plaintext: string };

/**
 * A PATCH's api_key: absent, redacted or an already-sealed value (an `encrypted` GET echoed back)
 * keeps the stored key; null or blank clears it; anything else is the new key.
 */
export function keyUpdate(value: string | null | undefined, isSealed: (v: string) => boolean): KeyUpdate {
  if (value === undefined || value === REDACTED) return { kind: 'keep' };
  if (value === null || value.trim() === '') return { kind: 'clear' };
  if (isSealed(value)) return { kind: 'keep' };
  return { kind: 'set', plaintext: value };
}

/** Applies the non-secret members of a PATCH to a (sealed) record; the LLM key is the caller's. */
export function applyDiffs(doc: Settings, request: SettingsUpdateRequest): Settings {
  const next: Settings = { ...doc };
  const agent = request.agent_settings_diff;
  if (agent) {
    if (agent.llm?.model !== undefined) next.llm_model = agent.llm.model;
    if (agent.llm?.base_url !== undefined) next.llm_base_url = agent.llm.base_url;
    if (agent.agent !== undefined) next.agent = agent.agent;
    if (agent.condenser?.enabled !== undefined) next.enable_default_condenser = agent.condenser.enabled;
    if (agent.condenser?.max_size !== undefined) next.condenser_max_size = agent.condenser.max_size;
    if (agent.enable_sub_agents !== undefined) next.enable_sub_agents = agent.enable_sub_agents;
  }
  const conversation = request.conversation_settings_diff;
  if (conversation) {
    if (conversation.max_iterations !== undefined) next.max_iterations = conversation.max_iterations;
    if (conversation.confirmation_mode !== undefined) next.confirmation_mode = conversation.confirmation_mode;
    if (conversation.security_analyzer !== undefined)
      next.security_analyzer = conversation.security_analyzer === 'llm' ? 'llm' : null;
  }
  return next;
}

/** True when a PATCH carries nothing to apply (OpenHands answers 400). */
export function isEmptyUpdate(request: SettingsUpdateRequest): boolean {
  return (
    !request.agent_settings_diff &&
    !request.conversation_settings_diff &&
    !('active_profile' in request) &&
    !('active_agent_profile_id' in request)
  );
}
