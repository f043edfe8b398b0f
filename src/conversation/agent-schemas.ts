// Wire types of an agent as OpenHands' clients send it (its LLM, tools, critic, context, condenser,
// MCP servers). Request models accept unknown members, as OpenHands' do; they are not stored.
import { type Static, type TSchema, Type } from 'typebox';
import { Nullable } from '../events/index.js';
import { McpOAuth, TASK_TOOL_NAMES } from '../tools/index.js';

const open = { additionalProperties: true } as const;

/** The tools of an agent no one named any for: OpenHands' default exec set. */
export const DEFAULT_TOOLS = ['terminal', 'file_editor', 'task_tracker'];

/** OpenHands' default tool specs: the exec set, with the task tool set when sub-agents are enabled. */
export function defaultToolNames(enableSubAgents: boolean | null | undefined): string[] {
  return enableSubAgents ? [...DEFAULT_TOOLS, TASK_TOOL_NAMES[0]] : DEFAULT_TOOLS;
}

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
    reasoning_effort: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          "OpenAI reasoning models' effort; for Claude Opus 4.6 and later and Sonnet 4.6, the effort of their adaptive thinking (none: no thinking)",
      }),
    ),
    disable_vision: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], {
        description: 'Leave images out of what the model is sent (each replaced by a line that says so)',
      }),
    ),
    api_mode: Type.Optional(
      Type.Union([Type.Literal('auto'), Type.Literal('chat'), Type.Literal('responses'), Type.Null()], {
        description:
          'chat or responses forces the OpenAI API used; auto (default) takes the Responses API for OpenAI reasoning models',
      }),
    ),
    capability_overrides: Type.Optional(
      Type.Union(
        [
          Type.Record(
            Type.String({ maxLength: 64 }),
            Type.Union([Type.Boolean(), Type.String({ maxLength: 64 })]),
            {
              maxProperties: 32,
            },
          ),
          Type.Null(),
        ],
        {
          description:
            "What the model takes, over agentd's table (proxy aliases, newer models): supports_reasoning_effort, supports_sampling_params, supports_prompt_cache, supports_responses_api (true/false), thinking_mode (adaptive, manual, none)",
        },
      ),
    ),
    api_version: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
        description: 'Azure OpenAI API version for azure/<deployment> models (default 2025-02-01-preview)',
      }),
    ),
    reasoning_summary: Type.Optional(
      Type.Union([Type.Literal('auto'), Type.Literal('concise'), Type.Literal('detailed'), Type.Null()], {
        description:
          'OpenAI reasoning summaries (Responses API), streamed as reasoning; OpenAI gives them to verified organizations only, so none unless asked',
      }),
    ),
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
          'Thinking tokens per turn for Claude Sonnet 4.5 and Haiku 4.5 (default 200000, capped below max_output_tokens); null or 0 turns their thinking off. Later Claude models think adaptively, at reasoning_effort',
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
    load_user_skills: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "The user's skills (their skill folders, the enabled installed ones) fill in, at the start, what `skills` does not name",
      }),
    ),
    load_public_skills: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "The extensions repository's public skills (those marketplace_path lists) fill in, at the start, what `skills` and the user's do not name; none when it cannot be fetched",
      }),
    ),
    marketplace_path: Type.Optional(
      Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
        default: 'marketplaces/default.json',
        description: "The extensions repository's file listing the public skills; null: every one",
      }),
    ),
    registered_marketplaces: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 128 }),
            source: Type.String({
              minLength: 1,
              maxLength: 2048,
              description: 'github:owner/repo, a git URL, or a folder on the server',
            }),
            ref: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
            repo_path: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
            auto_load: Type.Optional(
              Type.Union([Type.Boolean(), Type.Array(Type.String({ maxLength: 128 }), { maxItems: 100 })], {
                description:
                  'agentd: only false or [] (a start takes plugins by source in `plugins`; load_plugin adds one later)',
              }),
            ),
          },
          open,
        ),
        {
          maxItems: 20,
          description:
            "Marketplaces load_plugin resolves 'name' or 'name@marketplace' against (OpenHands' MarketplaceRegistration)",
        },
      ),
    ),
    disabled_skills: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        maxItems: 500,
        description: "Skills of these names are left out: given, loaded or the workspace's",
      }),
    ),
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
    // The SDK's MCPAuthCredential: agentd turns it into headers (agent-mcp.ts), or for oauth2 keeps
    // its authentication and state and sends the grant's access token (tools/mcp/oauth/).
    auth: OrNull(
      Type.Object(
        {
          strategy: Type.String({
            maxLength: 32,
            description: 'none, bearer, api_key, basic, header or oauth2',
          }),
          value: OrNull(Type.String({ maxLength: 8192 })),
          header_name: OrNull(Type.String({ minLength: 1, maxLength: 256 })),
          username: OrNull(Type.String({ maxLength: 1024 })),
          password: OrNull(Type.String({ maxLength: 8192 })),
          headers: OrNull(McpValues),
          ...McpOAuth.properties,
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

// OpenHands' `agent_settings` in a start (the conversion is agent-settings.ts).

export const AgentSettingsSpec = Type.Object(
  {
    agent_kind: Type.Optional(
      Type.String({ description: "'openhands' (or 'llm'): the standard agent; agentd runs no ACP agents" }),
    ),
    llm: Type.Ref('LLM'),
    tools: Type.Optional(Type.Union([Type.Array(ToolSpec), Type.Null()])),
    mcp_config: Type.Optional(Type.Union([AgentMcpConfig, Type.Null()])),
    agent_context: Type.Optional(Type.Union([AgentContextSpec, Type.Null()])),
    tool_concurrency_limit: Type.Optional(Type.Integer({ minimum: 1 })),
    enable_sub_agents: Type.Optional(
      Type.Boolean({
        description:
          'With no tools named: the default set and the task tool (task_tool_set), to hand tasks to sub-agents',
      }),
    ),
    verification: Type.Optional(
      Type.Object(
        {
          critic_enabled: Type.Optional(
            Type.Boolean({ description: "Judge the agent's steps: agentd's LLMCritic, on the agent's LLM" }),
          ),
          // No default here: the settings may sit inside a union, where a default is not filled in.
          critic_mode: Type.Optional(
            Type.Union([Type.Literal('finish_and_message'), Type.Literal('all_actions')], {
              description: 'Judge only finishing actions and replies (the default), or every action.',
            }),
          ),
        },
        open,
      ),
    ),
    condenser: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          condenser_kind: Type.Optional(Type.String({ description: 'llm_summarizing (default) or no_op' })),
          max_size: Type.Optional(Type.Integer({ minimum: 20 })),
          keep_first: Type.Optional(Type.Integer({ minimum: 0 })),
          max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
        },
        open,
      ),
    ),
  },
  {
    ...open,
    $id: 'AgentSettings',
    description:
      "OpenHands' AgentSettings: without `agent`, the agent is built from them (the default tools when none are named)",
  },
);
/** The settings as validated (`llm` is a reference to the LLM schema, typed here). */
export type AgentSettings = Omit<Static<typeof AgentSettingsSpec>, 'llm'> & { llm: LLMSpec };
