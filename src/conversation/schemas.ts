// Wire types of the conversations API (OpenHands agent-server shapes). Request models accept unknown
// members, as OpenHands' request models do (its clients send extra keys); they are not stored.
import { type Static, type TSchema, Type } from 'typebox';
import { DEFAULT_STUCK_THRESHOLDS, type StuckThresholds } from '../agent/index.js';
import { ConfirmationPolicy, ExecutionStatus, SecurityAnalyzer } from '../agent/schemas.js';
import { ImageContent, Nullable, TextContent } from '../events/index.js';
import { HookConfigInput } from '../hooks/index.js';

const open = { additionalProperties: true } as const;

export {
  ConfirmationPolicy,
  EXECUTION_STATUSES,
  ExecutionStatus,
  RiskThreshold,
  SecurityAnalyzer,
} from '../agent/schemas.js';

/** The LLM block of an agent (OpenHands `LLM`); only the members agentd uses are typed. */
export const LLMSpec = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    api_key: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    base_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    usage_id: Type.Optional(Type.String()),
    num_retries: Type.Optional(Type.Integer({ minimum: 0 })),
    retry_min_wait: Type.Optional(Type.Number({ minimum: 0 })),
    retry_max_wait: Type.Optional(Type.Number({ minimum: 0 })),
    retry_multiplier: Type.Optional(Type.Number({ minimum: 0 })),
    timeout: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    top_p: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    top_k: Type.Optional(
      Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'Anthropic models only' }),
    ),
    seed: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], { description: 'OpenAI chat completions only' }),
    ),
    max_output_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    reasoning_effort: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    input_cost_per_token: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    output_cost_per_token: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    litellm_extra_body: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    extra_headers: Type.Optional(
      Type.Union(
        [
          Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 8192 }), {
            maxProperties: 50,
          }),
          Type.Null(),
        ],
        { description: 'Sent with every request to the LLM; stored encrypted, shown masked' },
      ),
    ),
    extended_thinking_budget: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description:
          'Thinking tokens per turn for Claude Sonnet 4.5/4.6 and Haiku 4.5 (default 200000, capped below max_output_tokens); null or 0 turns thinking off',
      }),
    ),
    caching_prompt: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description:
          'Prompt caching for Claude models (the system prompt and the conversation so far); default true',
      }),
    ),
    log_completions: Type.Optional(Type.Boolean()),
    stream: Type.Optional(
      Type.Boolean({
        description:
          'Stream from the provider; WebSocket readers get each piece as a StreamingDeltaEvent (not stored).',
      }),
    ),
  },
  { ...open, $id: 'LLM' },
);
export type LLMSpec = Static<typeof LLMSpec> & Record<string, unknown>;

export const ToolSpec = Type.Object(
  { name: Type.String({ minLength: 1 }), params: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  open,
);

const CriticMode = Type.Optional(
  Type.Union([Type.Literal('finish_and_message'), Type.Literal('all_actions')], {
    default: 'finish_and_message',
    description: 'Judge only finishing actions and replies (default), or every action.',
  }),
);

/**
 * The agent's critic (agentd's kinds): LLMCritic asks an LLM (its own `llm`, else the agent's) to
 * score each judged step; PassCritic always scores 1.
 */
export const CriticSpec = Type.Object(
  {
    kind: Type.Union([Type.Literal('LLMCritic'), Type.Literal('PassCritic')]),
    // The LLM shape again without its $id: one schema may carry an $id only once.
    llm: Type.Optional(Type.Object(LLMSpec.properties, open)),
    mode: CriticMode,
  },
  { ...open, $id: 'Critic' },
);

/** OpenHands' AgentContext, the members agentd uses: skills (a keyword trigger or always on) and suffixes. */
export const AgentContextSpec = Type.Object(
  {
    skills: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            content: Type.String(),
            trigger: Type.Optional(
              Type.Union([
                Type.Object(
                  {
                    type: Type.Optional(Type.String()),
                    keywords: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
                  },
                  open,
                ),
                Type.Null(),
              ]),
            ),
          },
          open,
        ),
      ),
    ),
    system_message_suffix: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    user_message_suffix: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    load_project_skills: Type.Optional(Type.Boolean({ default: true })),
  },
  { ...open, $id: 'AgentContext' },
);
/**
 * An agent's condenser (OpenHands' `LLMSummarizingCondenser`; `NoOpCondenser` means none). Without
 * `llm`, the agent's LLM writes the summaries. Missing sizes default to OpenHands' (120 and 4).
 */
export const CondenserSpec = Type.Object(
  {
    kind: Type.String({ minLength: 1, examples: ['LLMSummarizingCondenser'] }),
    // A reference: the agent's LLM schema already carries the `LLM` id, which may appear only once.
    llm: Type.Optional(Type.Unsafe<Static<typeof LLMSpec> & Record<string, unknown>>(Type.Ref('LLM'))),
    max_size: Type.Optional(Type.Integer({ minimum: 1 })),
    keep_first: Type.Optional(Type.Integer({ minimum: 0 })),
    max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  },
  { ...open, $id: 'Condenser' },
);
export type CondenserSpec = Static<typeof CondenserSpec> & Record<string, unknown>;

const McpValues = Type.Record(
  Type.String({ maxLength: 256 }),
  Type.Union([Type.String({ maxLength: 8192 }), Type.Null()]),
  { maxProperties: 100 },
);
const OrNull = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

/** One MCP server as the SDK sends it (conversation/agent-mcp.ts reads it): a command or a URL. */
export const McpServerSpec = Type.Object(
  {
    command: OrNull(Type.String({ minLength: 1, maxLength: 4096 })),
    args: OrNull(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100 })),
    env: OrNull(McpValues),
    cwd: OrNull(Type.String({ minLength: 1, maxLength: 4096 })),
    url: OrNull(Type.String({ minLength: 1, maxLength: 4096 })),
    transport: OrNull(
      Type.Union([
        Type.Literal('stdio'),
        Type.Literal('sse'),
        Type.Literal('http'),
        Type.Literal('streamable-http'),
        Type.Literal('shttp'),
      ]),
    ),
    headers: OrNull(McpValues),
    enabled: OrNull(Type.Boolean()),
    // The SDK's MCPAuthCredential: agentd turns it into headers (agent-mcp.ts).
    auth: OrNull(
      Type.Object(
        {
          strategy: Type.String({ maxLength: 32, description: 'none, bearer, api_key, basic or header' }),
          value: OrNull(Type.String({ maxLength: 8192 })),
          header_name: OrNull(Type.String({ minLength: 1, maxLength: 256 })),
          username: OrNull(Type.String({ maxLength: 1024 })),
          password: OrNull(Type.String({ maxLength: 8192 })),
          headers: OrNull(McpValues),
        },
        open,
      ),
    ),
  },
  open,
);
export type McpServerSpec = Static<typeof McpServerSpec>;

/**
 * The SDK's `Agent.mcp_config`, in either of its shapes: `{"mcpServers": {name: server}}` or
 * `{name: server}`. Its servers are connected beside your settings' ones.
 */
export const AgentMcpConfig = Type.Object(
  {
    mcpServers: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 128 }), McpServerSpec, { maxProperties: 50 }),
    ),
  },
  {
    additionalProperties: McpServerSpec,
    maxProperties: 50,
    $id: 'AgentMcpConfig',
    description:
      'MCP servers by name (or under mcpServers), each a command or an http(s) URL; env, header and auth values are stored encrypted and shown masked',
  },
);

export const AgentSpec = Type.Object(
  {
    kind: Type.Optional(Type.Literal('Agent')),
    llm: LLMSpec,
    critic: Type.Optional(Type.Union([CriticSpec, Type.Null()])),
    agent_context: Type.Optional(Type.Union([AgentContextSpec, Type.Null()])),
    condenser: Type.Optional(Type.Union([CondenserSpec, Type.Null()])),
    tools: Type.Optional(Type.Array(ToolSpec)),
    include_default_tools: Type.Optional(Type.Array(Type.String())),
    tool_concurrency_limit: Type.Optional(Type.Integer({ minimum: 1 })),
    system_prompt_kwargs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    system_prompt: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100_000 }), Type.Null()], {
        description: "Used verbatim as the system prompt instead of agentd's; the dynamic context follows it",
      }),
    ),
    mcp_config: Type.Optional(Type.Union([AgentMcpConfig, Type.Null()])),
    filter_tools_regex: Type.Optional(
      Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], {
        description:
          "Keeps the tools (the spec's and the MCP servers') whose name matches from its start; the included defaults (finish, think) always stay",
      }),
    ),
  },
  { ...open, $id: 'Agent' },
);
export type AgentSpec = Static<typeof AgentSpec> & Record<string, unknown>;

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
    workspace: LocalWorkspace,
    conversation_id: Type.Optional(Type.String({ format: 'uuid' })),
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
    // OpenHands' SDK sends these as null or [] unless its user asks for them; agentd has neither, and
    // a start that asks for them is refused (start-request.ts) rather than run without them.
    plugins: Type.Optional(
      Type.Union([Type.Array(Type.Unknown(), { maxItems: 100 }), Type.Null()], {
        description: 'agentd loads no plugins: null or [] (a list with any plugin is a 422)',
      }),
    ),
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
      description: 'The agent profile that launched the conversation; null: agentd has no agent profiles.',
    }),
  },
  { $id: 'ConversationInfo' },
);
export type ConversationInfo = Static<typeof ConversationInfo>;

export const ConversationPage = Type.Object(
  { items: Type.Array(Type.Ref('ConversationInfo')), next_page_id: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'ConversationPage' },
);
