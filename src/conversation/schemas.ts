// Wire types of the conversations API (OpenHands agent-server shapes). Request models accept unknown
// members, as OpenHands' request models do (its clients send extra keys); they are not stored.
import { type Static, Type } from 'typebox';
import { type AgentDefinition, DEFAULT_STUCK_THRESHOLDS, type StuckThresholds } from '../agent/index.js';
import { ConfirmationPolicy, ExecutionStatus, SecurityAnalyzer } from '../agent/schemas.js';
import { ImageContent, TextContent } from '../events/index.js';
import { HookConfigInput } from '../hooks/index.js';
import { AgentSpec } from './agent-schemas.js';

const open = { additionalProperties: true } as const;

export {
  ConfirmationPolicy,
  EXECUTION_STATUSES,
  ExecutionStatus,
  RiskThreshold,
  SecurityAnalyzer,
} from '../agent/schemas.js';
export * from './agent-schemas.js';

export const LocalWorkspace = Type.Object(
  { working_dir: Type.String({ minLength: 1 }), kind: Type.Optional(Type.Literal('LocalWorkspace')) },
  { ...open, $id: 'LocalWorkspace' },
);

export const SendMessageRequest = Type.Object(
  {
    role: Type.Optional(
      Type.Union([
        Type.Literal('user'),
        Type.Literal('system'),
        Type.Literal('assistant'),
        Type.Literal('tool'),
      ]),
    ),
    content: Type.Optional(Type.Array(Type.Union([TextContent, ImageContent]))),
    run: Type.Optional(Type.Boolean()),
  },
  { ...open, $id: 'SendMessageRequest' },
);
export type SendMessageRequest = Static<typeof SendMessageRequest>;

/** A secret value: a plain string, or OpenHands' StaticSecret / LookupSecret objects. */
export const SecretSource = Type.Union([
  Type.String(),
  Type.Object(
    {
      kind: Type.Optional(Type.Literal('StaticSecret')),
      value: Type.String(),
      description: Type.Optional(Type.String()),
    },
    open,
  ),
  Type.Object(
    {
      kind: Type.Literal('LookupSecret'),
      url: Type.String({
        maxLength: 2048,
        description: 'An http or https URL the value is read from (GET) when a tool first needs it',
      }),
      headers: Type.Optional(
        Type.Record(Type.String(), Type.String({ maxLength: 8192 }), {
          maxProperties: 32,
          description: 'Sent with the lookup; sealed like secret values, never shown',
        }),
      ),
      description: Type.Optional(Type.String()),
    },
    open,
  ),
]);

/**
 * Tag keys are lower-case letters and digits (OpenHands); other keys are rejected, not ignored. Said
 * with propertyNames, not patternProperties: the OpenAPI generator turns patternProperties into
 * "any key", which documented keys the server refuses.
 */
export const Tags = Type.Unsafe<Record<string, string>>({
  type: 'object',
  propertyNames: { pattern: '^[a-z0-9]+$' },
  additionalProperties: { type: 'string', maxLength: 256 },
});

/** A threshold, its default OpenHands' (the agent's DEFAULT_STUCK_THRESHOLDS). */
const Threshold = (name: keyof StuckThresholds, what: string) =>
  Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_STUCK_THRESHOLDS[name], description: what }),
  );

/** OpenHands' StuckDetectionThresholds (the SDK's RemoteConversation sends them when given). */
export const StuckDetectionThresholds = Type.Object(
  {
    action_observation: Threshold(
      'action_observation',
      'The same action with the same result this many times in a row',
    ),
    action_error: Threshold(
      'action_error',
      'The same action failing the same way more than this many times in a row',
    ),
    monologue: Threshold('monologue', 'This many agent messages in a row, no user message between'),
    alternating_pattern: Threshold(
      'alternating_pattern',
      'Two actions alternating with their results, this many actions in all',
    ),
  },
  { ...open, $id: 'StuckDetectionThresholds' },
);

export const StartConversationRequest = Type.Object(
  {
    agent: Type.Optional(AgentSpec),
    llm_model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "agentd: without `agent`, run the settings' LLM (its key and base URL) with this model instead of the settings' model",
      }),
    ),
    agent_settings: Type.Optional(
      Type.Union([Type.Ref('AgentSettings'), Type.Null()], {
        description: "OpenHands' AgentSettings: without `agent`, the agent is built from them",
      }),
    ),
    agent_profile_id: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Run the agent profile of this id (/api/agent-profiles): its LLM profile, tools, skills, condenser and MCP servers; not with `agent` or `agent_settings`',
      }),
    ),
    worktree: Type.Optional(
      Type.Boolean({
        description:
          "In a git repository, work in a worktree of the conversation's own (branch openhands/<id>), removed with the conversation when nothing in it is uncommitted",
      }),
    ),
    secrets_encrypted: Type.Optional(
      Type.Boolean({
        description:
          "The agent's secrets are values sealed by this server for the caller (GET /api/settings with X-Expose-Secrets: encrypted): opened before use",
      }),
    ),
    agent_launch_additions: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              system_message_suffix_append: Type.Optional(
                Type.Union([Type.String({ maxLength: 32768 }), Type.Null()], {
                  description: "Appended to the agent's system message suffix (after the agent's own)",
                }),
              ),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: "OpenHands' deployment context, applied to the agent however it was given" },
      ),
    ),
    llm_profile: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          "agentd: without `agent`, run on this saved LLM profile of the caller (/api/profiles), all of it, instead of the settings' LLM",
      }),
    ),
    workspace: LocalWorkspace,
    conversation_id: Type.Optional(Type.String({ format: 'uuid' })),
    parent_conversation_id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description:
          "One of the caller's conversations, in the same working directory, that owns this one: it lists this one in sub_conversation_ids (a 422 otherwise)",
      }),
    ),
    confirmation_policy: Type.Optional(ConfirmationPolicy),
    security_analyzer: Type.Optional(Type.Union([SecurityAnalyzer, Type.Null()])),
    initial_message: Type.Optional(Type.Union([SendMessageRequest, Type.Null()])),
    max_iterations: Type.Optional(Type.Integer({ minimum: 1 })),
    stuck_detection: Type.Optional(Type.Boolean()),
    stuck_detection_thresholds: Type.Optional(Type.Union([StuckDetectionThresholds, Type.Null()])),
    secrets: Type.Optional(Type.Record(Type.String(), SecretSource)),
    tags: Type.Optional(Tags),
    autotitle: Type.Optional(Type.Boolean()),
    hook_config: Type.Optional(Type.Union([HookConfigInput, Type.Null()])),
    max_budget_per_task: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], {
        description:
          "USD a run may spend in total (all the conversation's LLMs); past it the run stops with MaxBudgetReached. Default: the user's settings.",
      }),
    ),
    plugins: Type.Optional(
      Type.Union(
        [
          Type.Array(
            Type.Object(
              {
                source: Type.String({
                  minLength: 1,
                  maxLength: 2048,
                  description: 'github:owner/repo, a git URL, or a folder on this server',
                }),
                ref: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
                repo_path: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
              },
              { additionalProperties: true, title: 'PluginSource' },
            ),
            { maxItems: 20 },
          ),
          Type.Null(),
        ],
        {
          description:
            "Plugins to load (Claude Code layout: skills/, commands/, hooks/hooks.json, .mcp.json): their skills, MCP servers and hooks join the agent's; one that cannot be fetched or read is a 422",
        },
      ),
    ),
    // OpenHands' SDK sends the sub-agents its process registered (RemoteConversation), [] when none.
    agent_definitions: Type.Optional(
      Type.Array(Type.Unsafe<AgentDefinition>(Type.Ref('AgentDefinition')), {
        maxItems: 100,
        description:
          "Sub-agent types the agent's task tool may launch (the client's registry), before the workspace's, the user's and agentd's own of the same names",
      }),
    ),
    // OpenHands' SDK sends this as null or [] unless its user asks for them; agentd runs no client-side
    // tools, and a start that asks for them is refused (start-request.ts) rather than run without them.
    client_tools: Type.Optional(
      Type.Union([Type.Array(Type.Unknown(), { maxItems: 100 }), Type.Null()], {
        description: 'agentd runs no client-side tools: null or [] (a list with any tool is a 422)',
      }),
    ),
  },
  { ...open, $id: 'StartConversationRequest' },
);
export type StartConversationRequest = Static<typeof StartConversationRequest>;

export const UpdateConversationRequest = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tags: Type.Optional(Tags),
  },
  { ...open, $id: 'UpdateConversationRequest' },
);

/** OpenHands' ForkConversationRequest (POST /api/conversations/{id}/fork). */
export const ForkConversationRequest = Type.Object(
  {
    id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: 'Id of the fork (a new one when absent or null); 409 when taken',
      }),
    ),
    title: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    tags: Type.Optional(Type.Union([Tags, Type.Null()])),
    reset_metrics: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'true: cost and token stats start at zero on the fork; false: copied from the source',
      }),
    ),
    from_event_id: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description:
          "Copy the path from the root to this event, the fork's HEAD at its end (404 when it is not the source's); null: every event",
      }),
    ),
  },
  { ...open, $id: 'ForkConversationRequest' },
);

/** OpenHands' NavigateConversationRequest (POST /api/conversations/{id}/navigate). */
export const NavigateConversationRequest = Type.Object(
  {
    event_id: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        default: null,
        description:
          'The event to make the new HEAD (404 when it is not one of the conversation’s): the events appended next start a branch from it and the agent sees only the path to it; null: an empty tree. Every branch stays in the log',
      }),
    ),
  },
  { ...open, $id: 'NavigateConversationRequest' },
);

export const UpdateSecretsRequest = Type.Object(
  { secrets: Type.Record(Type.String(), SecretSource) },
  { ...open, $id: 'UpdateSecretsRequest' },
);

export const SetConfirmationPolicyRequest = Type.Object(
  { policy: ConfirmationPolicy },
  { ...open, $id: 'SetConfirmationPolicyRequest' },
);

export const SetSecurityAnalyzerRequest = Type.Object(
  { security_analyzer: Type.Union([SecurityAnalyzer, Type.Null()]) },
  { ...open, $id: 'SetSecurityAnalyzerRequest' },
);

/** OpenHands' switch_llm body: the LLM the agent moves to. */
export const SwitchLlmRequest = Type.Object({ llm: Type.Ref('LLM') }, { $id: 'SwitchLlmRequest' });

/** OpenHands' switch_profile body: one of the caller's saved LLM profiles (/api/profiles). */
export const SwitchProfileRequest = Type.Object(
  { profile_name: Type.String({ minLength: 1, maxLength: 64 }) },
  { $id: 'SwitchProfileRequest' },
);

/** OpenHands' StartGoalRequest (POST /api/conversations/{id}/goal). */
export const StartGoalRequest = Type.Object(
  {
    objective: Type.String({
      minLength: 1,
      maxLength: 100_000,
      pattern: '\\S',
      description: 'The goal to pursue, sent as the first message and audited after each run',
    }),
    max_iterations: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'Audit rounds before giving up' }),
    ),
  },
  { ...open, $id: 'StartGoalRequest' },
);

export const ConfirmationResponseRequest = Type.Object(
  { accept: Type.Boolean(), reason: Type.Optional(Type.String()) },
  { ...open, $id: 'ConfirmationResponseRequest' },
);

export const AskAgentRequest = Type.Object({ question: Type.String() }, { ...open, $id: 'AskAgentRequest' });
export const AskAgentResponse = Type.Object({ response: Type.String() }, { $id: 'AskAgentResponse' });

export const Success = Type.Object({ success: Type.Boolean() }, { $id: 'Success' });

/** One model an ACP server offers (OpenHands' ACPModelInfo). */
const ACPModelInfo = Type.Object({
  model_id: Type.String(),
  name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** OpenHands' LaunchedAgentProfile: which agent profile (and revision) started a conversation. */
const LaunchedAgentProfile = Type.Object({
  agent_profile_id: Type.String({ format: 'uuid' }),
  revision: Type.Integer({ minimum: 0 }),
});

/** ConversationInfo (OpenHands §4.4): the conversation's state plus its metadata. */
export const ConversationInfo = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    workspace: LocalWorkspace,
    persistence_dir: Type.Union([Type.String(), Type.Null()]),
    max_iterations: Type.Integer(),
    stuck_detection: Type.Boolean(),
    execution_status: ExecutionStatus,
    confirmation_policy: ConfirmationPolicy,
    security_analyzer: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    activated_knowledge_skills: Type.Array(Type.String()),
    invoked_skills: Type.Array(Type.String()),
    blocked_actions: Type.Record(Type.String(), Type.String()),
    blocked_messages: Type.Record(Type.String(), Type.String()),
    last_user_message_id: Type.Union([Type.String(), Type.Null()]),
    leaf_event_id: Type.Union([Type.String(), Type.Null()]),
    stats: Type.Record(Type.String(), Type.Unknown()),
    secret_registry: Type.Record(Type.String(), Type.Unknown()),
    agent_state: Type.Record(Type.String(), Type.Unknown()),
    hook_config: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    title: Type.Union([Type.String(), Type.Null()]),
    metrics: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    created_at: Type.String(),
    updated_at: Type.String(),
    tags: Type.Record(Type.String(), Type.String()),
    agent: Type.Record(Type.String(), Type.Unknown()),
    forked_from_conversation_id: Type.Union([Type.String(), Type.Null()]),
    forked_from_event_id: Type.Union([Type.String(), Type.Null()]),
    parent_conversation_id: Type.Union([Type.String(), Type.Null()]),
    sub_conversation_ids: Type.Array(Type.String()),
    client_tools: Type.Array(Type.Unknown()),
    current_model_id: Type.Union([Type.String(), Type.Null()], {
      description:
        "An ACP agent's session model; null for native agents (read agent.llm.model), as OpenHands.",
    }),
    available_models: Type.Array(ACPModelInfo, {
      description: 'Models an ACP server offers; empty for native agents (all of agentd’s).',
    }),
    supports_runtime_model_switch: Type.Boolean({
      description: 'Whether a live model switch will be attempted; false for native agents.',
    }),
    launched_agent_profile: Type.Union([LaunchedAgentProfile, Type.Null()], {
      description: 'The agent profile the conversation was started on (and its revision then); null: none.',
    }),
  },
  { $id: 'ConversationInfo' },
);
export type ConversationInfo = Static<typeof ConversationInfo>;

export const ConversationPage = Type.Object(
  { items: Type.Array(Type.Ref('ConversationInfo')), next_page_id: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'ConversationPage' },
);
