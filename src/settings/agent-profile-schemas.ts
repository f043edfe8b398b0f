// OpenHands' agent profiles (/api/agent-profiles of its agent server v1.43): a named agent launch
// spec that holds references, not secrets — the LLM profile it runs on (`llm_profile_ref`), which of
// the user's MCP servers it gets (`mcp_server_refs`), which discovered skills it leaves out
// (`disabled_skills`) — and the agent's own members. A start names one by its stable id
// (`agent_profile_id`); agent-profiles.ts resolves it.
import { type Static, Type } from 'typebox';
import { Nullable } from '../events/index.js';
import { ProfileName } from './profile-schemas.js';

/** Most agent profiles one user may hold (OpenHands' MAX_AGENT_PROFILES). */
export const MAX_AGENT_PROFILES = 50;

/** Largest profile, as JSON: the settings document that holds them is read at every start. */
export const MAX_AGENT_PROFILE_BYTES = 64 * 1024;

/** The agent-profile schema version agentd writes (OpenHands' AGENT_PROFILE_SCHEMA_VERSION). */
export const AGENT_PROFILE_SCHEMA_VERSION = 2;

const Names = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 500, description });

/** OpenHands' CondenserSettingsConfig (llm_summarizing or no_op), its defaults filled in when stored. */
const ProfileCondenser = Type.Object(
  {
    condenser_kind: Type.Optional(Type.Union([Type.Literal('llm_summarizing'), Type.Literal('no_op')])),
    enabled: Type.Optional(Type.Boolean()),
    max_size: Type.Optional(Type.Integer({ minimum: 20, maximum: 100_000 })),
    keep_first: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    minimum_progress: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
    hard_context_reset_max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    hard_context_reset_context_scaling: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
    ),
  },
  { additionalProperties: false },
);

/**
 * OpenHands' ProfileVerificationSettings. agentd's critic is its LLMCritic on the agent's LLM: a
 * remote critic (`critic_server_url`, `critic_model_name`) and iterative refinement are refused at save.
 */
const ProfileVerification = Type.Object(
  {
    critic_enabled: Type.Optional(
      Type.Boolean({ description: "Judge the agent's steps (agentd's LLMCritic)" }),
    ),
    critic_mode: Type.Optional(Type.Union([Type.Literal('finish_and_message'), Type.Literal('all_actions')])),
    enable_iterative_refinement: Type.Optional(Type.Boolean({ description: 'agentd: only false' })),
    critic_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    max_refinement_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    critic_server_url: Type.Optional(
      Nullable(Type.String({ maxLength: 2048, description: 'agentd: only null' })),
    ),
    critic_model_name: Type.Optional(
      Nullable(Type.String({ maxLength: 256, description: 'agentd: only null' })),
    ),
  },
  { additionalProperties: false },
);

const ProfileTool = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    params: Type.Optional(
      Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 50 }),
    ),
  },
  { additionalProperties: false },
);

/** The profile a client saves (POST /api/agent-profiles/{name}); id, name and revision are the server's. */
export const AgentProfileInput = Type.Object(
  {
    schema_version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: AGENT_PROFILE_SCHEMA_VERSION,
        description: `1 or ${AGENT_PROFILE_SCHEMA_VERSION}; a version 1 profile's embedded skills are dropped (version 2 retired them)`,
      }),
    ),
    id: Type.Optional(Type.String({ maxLength: 128, description: 'Ignored: the server keeps the id' })),
    name: Type.Optional(Type.String({ maxLength: 64, description: "Ignored: the path's name wins" })),
    revision: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Ignored: the server counts revisions' }),
    ),
    agent_kind: Type.Optional(
      Type.Literal('openhands', { description: "agentd runs OpenHands agents only (not 'acp')" }),
    ),
    llm_profile_ref: ProfileName,
    mcp_server_refs: Type.Optional(
      Nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
          maxItems: 100,
          description:
            "null: all of the user's MCP servers; []: none; else those keys of agent_settings.mcp_config",
        }),
      ),
    ),
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 128, default: 'CodeActAgent' })),
    tools: Type.Optional(
      Nullable(
        Type.Array(ProfileTool, {
          maxItems: 50,
          description: "null: agentd's default tools; []: none; else exactly these",
        }),
      ),
    ),
    system_message_suffix: Type.Optional(Nullable(Type.String({ maxLength: 32_768 }))),
    disabled_skills: Type.Optional(Names("The user's skills (~/.openhands/skills, …) this agent leaves out")),
    condenser: Type.Optional(ProfileCondenser),
    verification: Type.Optional(ProfileVerification),
    enable_sub_agents: Type.Optional(
      Type.Boolean({
        description:
          'Give the agent the task tool (task_tool_set) when it names no tools: it may hand tasks to sub-agents',
      }),
    ),
    enable_switch_llm_tool: Type.Optional(
      Type.Boolean({
        description:
          "Kept for OpenHands' clients; agentd's agent has no switch_llm tool (a client switches: POST …/switch_llm)",
      }),
    ),
    tool_concurrency_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    skills: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 500, description: 'Version 1 only: dropped when stored' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'AgentProfile',
    description:
      "OpenHands' OpenHandsAgentProfile: references (an LLM profile, MCP server keys) and the agent's members, no secret",
  },
);
export type AgentProfileInput = Static<typeof AgentProfileInput>;

/** A stored profile: every member present (OpenHands' defaults filled in), id and revision the server's. */
export type StoredAgentProfile = Required<
  Omit<AgentProfileInput, 'skills' | 'condenser' | 'verification' | 'mcp_server_refs' | 'tools'>
> & {
  id: string;
  name: string;
  revision: number;
  mcp_server_refs: string[] | null;
  tools: { name: string; params?: Record<string, unknown> }[] | null;
  system_message_suffix: string | null;
  condenser: Required<Static<typeof ProfileCondenser>>;
  verification: Required<Static<typeof ProfileVerification>>;
};

export const AgentProfileNameParams = Type.Object({ name: ProfileName });
export const AgentProfileIdParams = Type.Object({
  profile_id: Type.String({ minLength: 1, maxLength: 128 }),
});

export const AgentProfileInfo = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    agent_kind: Type.String(),
    revision: Type.Integer(),
    llm_profile_ref: Nullable(Type.String()),
    mcp_server_refs: Nullable(Type.Array(Type.String())),
  },
  { title: 'AgentProfileInfo' },
);
export type AgentProfileInfo = Static<typeof AgentProfileInfo>;

export const AgentProfileList = Type.Object(
  {
    profiles: Type.Array(AgentProfileInfo),
    active_agent_profile_id: Nullable(Type.String()),
  },
  { title: 'AgentProfileListResponse' },
);
export type AgentProfileList = Static<typeof AgentProfileList>;

export const AgentProfileDetail = Type.Object(
  {
    name: Type.String(),
    profile: Type.Object(
      {},
      { additionalProperties: true, description: 'The profile as stored (no secret)' },
    ),
  },
  { title: 'AgentProfileDetailResponse' },
);

export const AgentProfileMutation = Type.Object(
  { name: Type.String(), message: Type.String() },
  { title: 'AgentProfileMutationResponse' },
);
export type AgentProfileMutation = Static<typeof AgentProfileMutation>;

export const ActivateAgentProfileResponse = Type.Object(
  {
    id: Type.String(),
    message: Type.String(),
    agent_settings_applied: Type.Boolean({
      description: 'Always false: activation only moves the pointer, the settings stay as they are',
    }),
  },
  { title: 'ActivateAgentProfileResponse' },
);
export type ActivateAgentProfileResponse = Static<typeof ActivateAgentProfileResponse>;

/** OpenHands' AgentProfileDiagnostics: what a start on the profile would resolve to, without starting. */
export const AgentProfileDiagnostics = Type.Object(
  {
    agent_kind: Type.String(),
    valid: Type.Boolean(),
    errors: Type.Array(Type.String()),
    llm_profile_ref: Nullable(Type.String()),
    llm_profile_resolved: Type.Boolean(),
    llm_api_key_set: Type.Boolean(),
    mcp_server_refs: Nullable(Type.Array(Type.String())),
    resolved_mcp_config_keys: Type.Array(Type.String()),
    dangling_mcp_server_refs: Type.Array(Type.String()),
    disabled_skills: Type.Array(Type.String()),
    resolved_skills: Type.Array(Type.String()),
    acp_api_key_secret_name: Type.Null(),
    acp_base_url_secret_name: Type.Null(),
    acp_file_secret_names: Type.Array(Type.String()),
    resolved_settings: Nullable(
      Type.Object(
        {},
        { additionalProperties: true, description: 'The agent settings a start would run, secrets redacted' },
      ),
    ),
  },
  { title: 'AgentProfileDiagnostics' },
);
export type AgentProfileDiagnostics = Static<typeof AgentProfileDiagnostics>;
