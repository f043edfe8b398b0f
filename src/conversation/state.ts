// The conversation state kept in the store (ConversationRecord.state) and its projections:
// ConversationInfo for REST, the `full_state` value for WebSocket snapshots. Secrets (the LLM key,
// conversation secrets) are stored encrypted and always shown masked.
import type { AgentDefinition, GoalStatus, StuckThresholds } from '../agent/index.js';
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { Worktree } from '../git/index.js';
import type { HookConfig } from '../hooks/index.js';
import { mapLlmSecrets } from '../llm/index.js';
import { REDACTED } from '../settings/index.js';
import type { ConversationRecord } from '../store/index.js';
import { maskedMcp } from './agent-mcp.js';
import type { BranchPoint } from './branches.js';
import type { AgentSpec, ConfirmationPolicy, ConversationInfo, ExecutionStatus } from './schemas.js';
import type { StoredSecret } from './secrets.js';

/** How a secret is shown: OpenHands' redaction, the same as the settings API's. */
export const MASK = REDACTED;

const TITLE_LENGTH = 50;

/** A title from a message's text: whitespace collapsed, cut to 50 characters; null when blank. */
export function titleFromText(text: string): string | null {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return null;
  return flat.length > TITLE_LENGTH ? `${flat.slice(0, TITLE_LENGTH - 3)}...` : flat;
}

export interface ConversationState {
  agent: AgentSpec;
  workspace: { working_dir: string; kind: 'LocalWorkspace' };
  persistence_dir: string;
  max_iterations: number;
  stuck_detection: boolean;
  /** The request's stuck_detection_thresholds, when it had them (absent: OpenHands' defaults). */
  stuck_detection_thresholds?: StuckThresholds;
  confirmation_policy: ConfirmationPolicy;
  security_analyzer: Record<string, unknown> | null;
  activated_knowledge_skills: string[];
  invoked_skills: string[];
  blocked_actions: Record<string, string>;
  blocked_messages: Record<string, string>;
  last_user_message_id: string | null;
  stats: Record<string, unknown>;
  /** Secret name → encrypted value (SecretBox text) or lookup (headers sealed), with an optional description. */
  secrets: Record<string, StoredSecret>;
  agent_state: Record<string, unknown>;
  autotitle: boolean;
  /** The conversation's own hooks (normalized); server-wide hooks are added when it runs. */
  hook_config?: HookConfig | null;
  /** USD the conversation may spend in total; null = no limit. */
  max_budget_per_task?: number | null;
  /** Set on a fork: the source conversation and the event the copy ends at (null: all of it). */
  forked_from?: { conversation_id: string; event_id: string | null };
  /** Where the conversation branches (branches.ts); absent until HEAD is first moved (POST /navigate). */
  branch_points?: BranchPoint[];
  /** HEAD once moved: the newest node of the active branch, null for an empty tree; absent: the log's end. */
  leaf_event_id?: string | null;
  /** The git worktree the conversation works in (a start with `worktree: true`), removed with it. */
  worktree?: Worktree;
  /** The last status of its /goal loop (goal-loop.ts), what a resume goes on from; absent before one. */
  goal?: GoalStatus;
  /** The agent profile it was started on (`agent_profile_id`) and that profile's revision then. */
  launched_agent_profile?: { agent_profile_id: string; revision: number };
  /** The keys of the settings' MCP servers it connects (its agent profile's choice); absent: all of them. */
  settings_mcp_servers?: string[];
  /**
   * The sub-agent types its start brought (the client's `agent_definitions`, then its plugins'): the
   * first its task tool offers, before the workspace's, the user's and agentd's (sub-agent-requests.ts).
   */
  agent_definitions?: AgentDefinition[];
}

/** The state members that emit a ConversationStateUpdateEvent when they change (OpenHands §4.3). */
export type StateKey =
  | 'execution_status'
  | 'confirmation_policy'
  | 'security_analyzer'
  | 'last_user_message_id'
  | 'stats'
  | 'tags'
  | 'agent_state'
  | 'agent'
  | 'goal';

/** A single-member ConversationStateUpdateEvent (persisted, unlike full_state snapshots). */
export function stateUpdateEvent(key: StateKey, value: unknown): AnyEvent {
  return {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'environment',
    key,
    value,
    kind: 'ConversationStateUpdateEvent',
  } as AnyEvent;
}

export function stateOf(record: ConversationRecord): ConversationState {
  return record.state as unknown as ConversationState;
}

/** The agent as shown to clients: its LLMs' secrets and its MCP servers' masked, the rest as given. */
export function maskedAgent(agent: AgentSpec): Record<string, unknown> {
  const mask = () => MASK;
  const masked: Record<string, unknown> = { kind: 'Agent', ...agent, llm: mapLlmSecrets(agent.llm, mask) };
  if (agent.critic?.llm) masked.critic = { ...agent.critic, llm: mapLlmSecrets(agent.critic.llm, mask) };
  if (agent.mcp_config) masked.mcp_config = maskedMcp(agent.mcp_config, MASK);
  if (agent.condenser?.llm)
    masked.condenser = { ...agent.condenser, llm: mapLlmSecrets(agent.condenser.llm, mask) };
  return masked;
}

function secretRegistry(state: ConversationState): Record<string, unknown> {
  const sources: Record<string, unknown> = {};
  for (const [name, secret] of Object.entries(state.secrets)) {
    const description = secret.description ? { description: secret.description } : {};
    // A lookup's URL is shown, its headers (credentials) only by name, as OpenHands masks them.
    const headers = Object.fromEntries((secret.lookup?.names ?? []).map((h) => [h, MASK]));
    sources[name] = secret.lookup
      ? { kind: 'LookupSecret', url: secret.lookup.url, headers, ...description }
      : { kind: 'StaticSecret', value: MASK, ...description };
  }
  return { secret_sources: sources };
}

/** The `full_state` snapshot value (OpenHands ConversationState, exclude_none). */
export function fullState(record: ConversationRecord): Record<string, unknown> {
  const s = stateOf(record);
  const value: Record<string, unknown> = {
    id: record.id,
    agent: maskedAgent(s.agent),
    workspace: s.workspace,
    persistence_dir: s.persistence_dir,
    max_iterations: s.max_iterations,
    stuck_detection: s.stuck_detection,
    execution_status: record.executionStatus,
    confirmation_policy: s.confirmation_policy,
    activated_knowledge_skills: s.activated_knowledge_skills,
    invoked_skills: s.invoked_skills,
    blocked_actions: s.blocked_actions,
    blocked_messages: s.blocked_messages,
    stats: s.stats,
    secret_registry: secretRegistry(s),
    tags: record.tags,
    agent_state: s.agent_state,
  };
  if (s.security_analyzer) value.security_analyzer = s.security_analyzer;
  if (s.last_user_message_id) value.last_user_message_id = s.last_user_message_id;
  if (s.hook_config) value.hook_config = s.hook_config;
  // The goal's state is a state key of its own (`goal` updates): a reader that joins late (the web page
  // opens at the newest events) learns it here.
  if (s.goal) value.goal = s.goal;
  return value;
}

/** `children`: the ids of its sub-conversations (ConversationQueries.infos reads them). */
export function conversationInfo(record: ConversationRecord, children: readonly string[]): ConversationInfo {
  const s = stateOf(record);
  return {
    id: record.id,
    workspace: s.workspace,
    persistence_dir: s.persistence_dir,
    max_iterations: s.max_iterations,
    stuck_detection: s.stuck_detection,
    execution_status: record.executionStatus as ExecutionStatus,
    confirmation_policy: s.confirmation_policy,
    security_analyzer: s.security_analyzer,
    activated_knowledge_skills: s.activated_knowledge_skills,
    invoked_skills: s.invoked_skills,
    blocked_actions: s.blocked_actions,
    blocked_messages: s.blocked_messages,
    last_user_message_id: s.last_user_message_id,
    leaf_event_id: s.leaf_event_id ?? null,
    stats: s.stats,
    secret_registry: secretRegistry(s),
    agent_state: s.agent_state,
    hook_config: (s.hook_config ?? null) as Record<string, unknown> | null,
    title: record.title,
    metrics: null,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    tags: record.tags,
    agent: maskedAgent(s.agent),
    forked_from_conversation_id: s.forked_from?.conversation_id ?? null,
    forked_from_event_id: s.forked_from?.event_id ?? null,
    parent_conversation_id: record.parentId ?? null,
    sub_conversation_ids: [...children],
    client_tools: [],
    // agentd runs native agents only: OpenHands leaves these empty for them (no ACP session, no
    // live model switch).
    current_model_id: null,
    available_models: [],
    supports_runtime_model_switch: false,
    launched_agent_profile: s.launched_agent_profile ?? null,
  };
}

/** The finish message, else the last agent message's text, else "" (OpenHands' agent_final_response). */
export function finalResponseOf(events: readonly unknown[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as {
      kind: string;
      source?: string;
      action?: { kind?: string; message?: string };
      llm_message?: { content?: { text?: string }[] };
    };
    if (e.kind === 'ActionEvent' && e.action?.kind === 'FinishAction') return e.action.message ?? '';
    if (e.kind === 'MessageEvent' && e.source === 'agent')
      return (e.llm_message?.content ?? []).map((c) => c.text ?? '').join('');
  }
  return '';
}
