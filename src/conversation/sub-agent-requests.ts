// What a sub-agent task starts from (OpenHands' task_tool_set, sub-agent-tasks.ts runs it): the
// sub-agent types a conversation may launch, and the start request of a task's own conversation,
// made from its type's definition and the parent's state as it is when the task starts.
import {
  type AgentDefinition,
  availableAgentDefinitions,
  userSkills,
  workspaceSkills,
} from '../agent/index.js';
import {
  type HookConfig,
  HookConfigError,
  isEmptyHookConfig,
  mergeHookConfigs,
  normalizeHookConfig,
} from '../hooks/index.js';
import { isTaskTool } from '../tools/index.js';
import { skillSpec } from './context-skills.js';
import type { AgentSpec, ConfirmationPolicy, LLMSpec, StartConversationRequest } from './schemas.js';
import type { ConversationState } from './state.js';

/**
 * The sub-agent types of a conversation, the first of a name winning (OpenHands' precedence): those
 * its start brought (the client's registry, then its plugins'), the workspace's files, the user's
 * files, then agentd's built-in ones.
 */
export function conversationSubAgents(
  state: ConversationState,
  home: string,
  warn: (line: string) => void,
): AgentDefinition[] {
  return availableAgentDefinitions(
    { home, projectDir: state.workspace.working_dir, warn },
    state.agent_definitions ?? [],
  );
}

/** A definition that cannot become a start: the message says what to change, for the parent's LLM. */
export class SubAgentDefinitionError extends Error {
  override name = 'SubAgentDefinitionError';
}

/** The tags a task's conversation carries: which task of its parent it is, and its type. */
export const TASK_TAG = 'taskid';
export const SUBAGENT_TAG = 'subagent';

export interface TaskStart {
  parentId: string;
  parent: ConversationState;
  definition: AgentDefinition;
  /** The LLM the sub-agent runs on, its secrets in clear: the parent's (`inherit`) or a profile's. */
  llm: LLMSpec;
  /** The parent's secrets in clear, as a start takes them. */
  secrets: Record<string, unknown>;
  /** USD the sub-agent may spend: its definition's, within what the parent has left; null = no limit. */
  budget: number | null;
  home: string;
}

/** OpenHands' permission_mode as a confirmation policy; none: the parent's. */
function policyOf(mode: AgentDefinition['permission_mode']): ConfirmationPolicy | null {
  if (mode === 'always_confirm') return { kind: 'AlwaysConfirm' };
  if (mode === 'never_confirm') return { kind: 'NeverConfirm' };
  if (mode === 'confirm_risky') return { kind: 'ConfirmRisky' };
  return null;
}

/** The definition's skills by name, the workspace's over the user's (OpenHands' order). */
function namedSkills(definition: AgentDefinition, workingDir: string, home: string) {
  if (definition.skills.length === 0) return [];
  const available = new Map([...userSkills(home), ...workspaceSkills(workingDir)].map((s) => [s.name, s]));
  return definition.skills.map((name) => {
    const skill = available.get(name);
    if (!skill)
      throw new SubAgentDefinitionError(
        `Skill '${name}' not found but was given to agent '${definition.name}'.`,
      );
    return skillSpec(skill);
  });
}

/**
 * The definition's condenser as a start's `agent.condenser`, which the start resolves like any
 * (resolveCondenser: its defaults, its refusal of a kind agentd has not): none when it says so, else
 * its kind and sizes, on the sub-agent's own LLM. Absent: the start's default.
 */
function condenserOf(definition: AgentDefinition): Pick<AgentSpec, 'condenser'> {
  const c = definition.condenser as { kind?: unknown; max_size?: unknown; keep_first?: unknown } | null;
  if (!c) return {};
  if (c.kind === 'NoOpCondenser') return { condenser: null };
  const size = (value: unknown) => (Number.isInteger(value) ? (value as number) : undefined);
  const max_size = size(c.max_size);
  const keep_first = size(c.keep_first);
  return {
    condenser: {
      kind: typeof c.kind === 'string' ? c.kind : 'LLMSummarizingCondenser',
      ...(max_size === undefined ? {} : { max_size }),
      ...(keep_first === undefined ? {} : { keep_first }),
    },
  };
}

/** The start of a task's conversation: a child of the parent, in its workspace (taskTags name it). */
export function taskStartRequest(start: TaskStart): StartConversationRequest {
  const { definition, parent } = start;
  const nested = definition.tools.filter(isTaskTool);
  if (nested.length > 0)
    throw new SubAgentDefinitionError(
      `Agent '${definition.name}' asks for ${nested.join(', ')}: a sub-agent cannot launch sub-agents of its own.`,
    );
  // A workspace is anyone's (a cloned repository): its definitions may shape a sub-agent, but not run
  // commands of their own around it, as a workspace's plugins may not (agent/plugins.ts).
  if (definition.level === 'project' && (definition.hooks || definition.mcp_config))
    throw new SubAgentDefinitionError(
      `Agent '${definition.name}' is the workspace's (${definition.source}) and names ${definition.hooks ? 'hooks' : 'MCP servers'}: agentd runs those only from the user's own definitions (~/.agents/agents) or the client's.`,
    );
  const workingDir = parent.workspace.working_dir;
  const skills = namedSkills(definition, workingDir, start.home);
  const suffix = definition.system_prompt.trim();
  const agent: AgentSpec = {
    kind: 'Agent',
    // OpenHands' sub-agents do not stream: no one reads a task's conversation token by token.
    llm: { ...start.llm, usage_id: 'agent', stream: false },
    tools: definition.tools.map((name) => ({ name })),
    agent_context: {
      ...(suffix ? { system_message_suffix: suffix } : {}),
      ...(skills.length > 0 ? { skills } : {}),
    },
    ...condenserOf(definition),
  };
  if (definition.mcp_config && Object.keys(definition.mcp_config).length > 0)
    agent.mcp_config = definition.mcp_config as AgentSpec['mcp_config'];
  // The parent's hooks (its client's, its plugins') govern what its sub-agents do too: a hook that
  // denies a command must not be stepped around by delegating the command. The type's come after.
  let hooks: HookConfig;
  try {
    hooks = mergeHookConfigs(parent.hook_config, definition.hooks && normalizeHookConfig(definition.hooks));
  } catch (error) {
    if (!(error instanceof HookConfigError)) throw error;
    throw new SubAgentDefinitionError(
      `Agent '${definition.name}' has hooks agentd cannot use: ${error.message}`,
    );
  }
  return {
    agent,
    workspace: { working_dir: workingDir },
    parent_conversation_id: start.parentId,
    confirmation_policy: policyOf(definition.permission_mode) ?? parent.confirmation_policy,
    security_analyzer: parent.security_analyzer,
    max_iterations: definition.max_iteration_per_run ?? parent.max_iterations,
    max_budget_per_task: start.budget,
    stuck_detection: parent.stuck_detection,
    ...(isEmptyHookConfig(hooks) ? {} : { hook_config: hooks }),
    secrets: start.secrets,
    autotitle: false,
  } as StartConversationRequest;
}

/** The tags of a task's conversation: which task of its parent it is, and of which type. */
export const taskTags = (taskId: string, type: string) => ({ [TASK_TAG]: taskId, [SUBAGENT_TAG]: type });

/**
 * A task conversation's `usage_to_metrics` as one entry (OpenHands' combined metrics), what its
 * parent's stats show under `task:<id>`: costs and tokens summed, the lists joined.
 */
export function combinedUsage(stats: Record<string, unknown>, model: string): Record<string, unknown> {
  const usage = (stats.usage_to_metrics ?? {}) as Record<string, Record<string, unknown>>;
  const tokens: Record<string, number> = {};
  let cost = 0;
  const costs: unknown[] = [];
  const latencies: unknown[] = [];
  for (const entry of Object.values(usage)) {
    if (typeof entry?.accumulated_cost === 'number') cost += entry.accumulated_cost;
    for (const [key, value] of Object.entries((entry?.accumulated_token_usage ?? {}) as object))
      if (typeof value === 'number' && key !== 'context_window' && key !== 'per_turn_token')
        tokens[key] = (tokens[key] ?? 0) + value;
    if (Array.isArray(entry?.costs)) costs.push(...entry.costs);
    if (Array.isArray(entry?.response_latencies)) latencies.push(...entry.response_latencies);
  }
  return {
    model_name: model,
    accumulated_cost: cost,
    max_budget_per_task: null,
    accumulated_token_usage: { model, ...tokens, response_id: '' },
    costs,
    response_latencies: latencies,
  };
}
