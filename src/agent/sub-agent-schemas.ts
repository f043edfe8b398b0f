// Wire types of sub-agent definitions (OpenHands' AgentDefinition, as `model_dump(mode="json")` writes
// it) and of POST /api/sub-agents (OpenHands' sub_agents_router). Every member has OpenHands' default,
// and is listed as required: Ajv (useDefaults) fills a missing one before it checks, so a client's
// partial definition validates and then reads whole, and the TypeScript type has no optional members.
import { type Static, type TSchema, Type } from 'typebox';
import { Nullable } from '../events/index.js';
import { ProjectDir } from './schemas.js';

const open = { additionalProperties: true } as const;
const Mapping = Type.Object({}, open);
const OrNull = <T extends TSchema>(schema: T, description: string) =>
  Type.Unsafe<Static<T> | null>({ ...Nullable(schema), default: null, description });
const Names = (description: string) =>
  Type.Array(Type.String({ maxLength: 256 }), { maxItems: 200, default: [], description });

/** Where a definition came from; set by discovery, never by a file. */
const AGENT_DEFINITION_LEVELS = ['project', 'user', 'builtin', 'plugin', 'programmatic'] as const;
export const PERMISSION_MODES = ['always_confirm', 'never_confirm', 'confirm_risky'] as const;
const Choice = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

/** The longest description or system prompt a definition may carry. */
const MAX_TEXT = 100_000;

export const AgentDefinition = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 256,
      description: "The sub-agent's type, as the task tool names it",
    }),
    description: Type.String({
      maxLength: MAX_TEXT,
      default: '',
      description: 'When to use it; <example> tags in it are when_to_use_examples',
    }),
    model: Type.String({
      maxLength: 256,
      default: 'inherit',
      description: "'inherit' (the parent's LLM) or the name of an LLM profile",
    }),
    color: OrNull(Type.String({ maxLength: 64 }), 'A display color'),
    tools: Names('The tools it may use, by registry name'),
    skills: Names('Skills it gets, by name'),
    system_prompt: Type.String({
      maxLength: MAX_TEXT,
      default: '',
      description: "Added to the parent's system prompt (the file's body)",
    }),
    source: OrNull(Type.String({ maxLength: 4096 }), 'The file it was read from'),
    level: OrNull(Choice(AGENT_DEFINITION_LEVELS), 'Where it was found'),
    when_to_use_examples: Type.Array(Type.String({ maxLength: MAX_TEXT }), {
      maxItems: 100,
      default: [],
      description: 'Requests it suits',
    }),
    hooks: OrNull(Mapping, 'Its hook configuration (snake_case events)'),
    permission_mode: OrNull(Choice(PERMISSION_MODES), "Its confirmation policy; null: the parent's"),
    max_iteration_per_run: OrNull(Type.Integer({ minimum: 1 }), 'Most steps a run may take'),
    max_budget_per_run: OrNull(Type.Number({ exclusiveMinimum: 0 }), 'Most a run may cost (USD)'),
    mcp_config: OrNull(Type.Record(Type.String(), Mapping), 'Its MCP servers by name'),
    profile_store_dir: OrNull(Type.String({ maxLength: 4096 }), 'Where its LLM profiles are'),
    condenser: OrNull(Mapping, 'Its condenser ({kind, ...}); null: the default one, NoOpCondenser: none'),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      default: {},
      description: "The front matter's other keys",
    }),
  },
  { $id: 'AgentDefinition' },
);
export type AgentDefinition = Static<typeof AgentDefinition>;

/** OpenHands' SubAgentsRequest. */
export const SubAgentsRequest = Type.Object(
  {
    load_user: Type.Optional(
      Type.Boolean({ default: true, description: 'Read ~/.agents/agents and ~/.openhands/agents' }),
    ),
    load_project: Type.Optional(
      Type.Boolean({ default: true, description: "Read project_dir's .agents/agents and .openhands/agents" }),
    ),
    load_builtin: Type.Optional(Type.Boolean({ default: true, description: "agentd's built-in sub-agents" })),
    project_dir: ProjectDir('sub-agents'),
  },
  { ...open, $id: 'SubAgentsRequest' },
);
export type SubAgentsRequest = Static<typeof SubAgentsRequest>;

/** OpenHands' SubAgentInfo: a definition whole, with its deprecated alias and whether it is built in. */
export const SubAgentInfo = Type.Object(
  {
    ...AgentDefinition.properties,
    mcp_servers: Type.Unsafe<AgentDefinition['mcp_config']>({
      ...AgentDefinition.properties.mcp_config,
      deprecated: true,
      description: 'Deprecated alias of mcp_config (the same value)',
    }),
    is_builtin: Type.Boolean({ description: "level is 'builtin'" }),
  },
  { $id: 'SubAgentInfo' },
);
export type SubAgentInfo = Static<typeof SubAgentInfo>;

export const SubAgentsResponse = Type.Object(
  { agents: Type.Array(Type.Ref('SubAgentInfo')) },
  { $id: 'SubAgentsResponse' },
);
