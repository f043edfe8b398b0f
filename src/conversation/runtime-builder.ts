// How a conversation's runtime is put together from its record: its LLMs (each key opened once, the
// metrics going on from the stored stats), its tools and the owner's MCP servers, the agent context
// (the workspace's skills), hooks, condenser and critic, and its secrets. ConversationRuntimes
// (runtimes.ts) builds one on a conversation's first use.

import { homedir } from 'node:os';
import type { AgentDefinition } from '../agent/index.js';
import {
  Agent,
  AgentContext,
  type Critic,
  LLMCritic,
  PassCritic,
  SummarizingCondenser,
  type SwitchedLlms,
} from '../agent/index.js';
import { HookRunner, isEmptyHookConfig, mergeHookConfigs } from '../hooks/index.js';
import { createLLM, type LLM, type Logger, mapLlmSecrets } from '../llm/index.js';
import { type EffectiveSettings, mcpConfigOnly, SecretBox, withSearchServer } from '../settings/index.js';
import type { ConversationRecord } from '../store/index.js';
import { createTools, isTaskTool, type SubAgentPort } from '../tools/index.js';
import { mapMcpValues, storedAgentMcp, withAgentMcp, withSettingsOAuthStores } from './agent-mcp.js';
import type { BranchPoint } from './branches.js';
import type { LoadedHistory } from './history-read.js';
import { ConversationOAuthState } from './mcp-oauth-state.js';
import { ConversationRuntime } from './runtime.js';
import type { ConversationServiceOptions } from './runtimes.js';
import type { LLMSpec } from './schemas.js';
import { ConversationSecrets } from './secrets.js';
import { type ConversationState, stateOf } from './state.js';
import { conversationSubAgents } from './sub-agent-requests.js';
import { filterTools, toolNamesOf } from './tools.js';

/** A conversation a start is creating: its record, not stored yet, the owner's settings it read. */
export interface CreatedConversation {
  record: ConversationRecord;
  settings: EffectiveSettings | null;
  /** The keys the start sealed into the record, by sealed value: its runtime need not open them. */
  sealed: ReadonlyMap<string, string>;
}

export interface RuntimeSources {
  options: ConversationServiceOptions;
  /** The conversation's logger (its id on every line). */
  logger: Logger;
  /** The conversation's history as its runtime keeps it (history-read.ts), of the branch at `points`. */
  readHistory: (points: readonly BranchPoint[] | undefined) => Promise<LoadedHistory>;
  /** How its task tool runs sub-agents of these types (sub-agent-tasks.ts). */
  subAgents: (record: ConversationRecord, types: readonly AgentDefinition[]) => SubAgentPort;
}

/** `created`: what a start has just read (the owner's settings) and sealed; else read and opened here. */
export async function buildRuntime(
  { options, logger, readHistory, subAgents }: RuntimeSources,
  record: ConversationRecord,
  created?: CreatedConversation,
): Promise<ConversationRuntime> {
  const state = stateOf(record);
  // The agent's, the condenser's and the critic's LLMs mostly share one sealed key: opened once. A
  // value that is not sealed is used as stored: conversations stored before a start sealed their
  // MCP servers' values and their LLMs' extra headers kept them in clear.
  const opened = new Map(created?.sealed);
  const open = (value: string) => {
    if (!SecretBox.isSealed(value)) return value;
    let key = opened.get(value);
    if (key === undefined) {
      key = options.secretBox.decrypt(value);
      opened.set(value, key);
    }
    return key;
  };
  const llmFor = (spec: LLMSpec) => conversationLLM(options, logger, spec, state, open);
  const llm = llmFor(state.agent.llm);
  const names = toolNamesOf(state.agent);
  // The sub-agent types are read (the workspace's and the user's files) only for an agent that delegates.
  const delegates = names.some(isTaskTool);
  const home = options.skillsHome ?? homedir();
  const port = delegates
    ? subAgents(
        record,
        conversationSubAgents(state, home, (line) => logger.warn({}, line)),
      )
    : undefined;
  const builtIn = createTools(names, options.toolOptions ?? {}, state.persistence_dir, port);
  const effective = created ? created.settings : await options.settings.getEffective(record.ownerId);
  const agentMcp = storedAgentMcp(state.agent);
  // An agent profile's start connects only the settings' servers it chose.
  const chosen = state.settings_mcp_servers;
  const settingsMcp = withSearchServer(
    chosen ? mcpConfigOnly(effective?.mcp_config ?? null, chosen) : effective?.mcp_config,
    effective?.search_api_key,
    options.searchMcpUrl,
  );
  // Refreshed OAuth tokens go back where the server is kept: the settings, or this conversation's record.
  const oauthState = new ConversationOAuthState(record, created !== undefined, options.secretBox, logger);
  const withStores = withSettingsOAuthStores(settingsMcp, (url) =>
    options.settings.mcpOAuthStore(record.ownerId, url),
  );
  const servers = agentMcp
    ? withAgentMcp(withStores, mapMcpValues(agentMcp, open), (name) => oauthState.store(name))
    : withStores;
  const mcp = await options.mcp.acquire(record.ownerId, servers, new Set(builtIn.map((t) => t.name)));
  const tools = filterTools(state.agent, [...builtIn, ...mcp.tools]);
  const hooks = mergeHookConfigs(options.hooks, state.hook_config);
  const condenser = state.agent.condenser;
  const agent = new Agent({
    llm,
    tools,
    toolConcurrencyLimit: state.agent.tool_concurrency_limit ?? 1,
    notes: mcp.warnings,
    securityAnalyzer: state.security_analyzer?.kind === 'LLMSecurityAnalyzer',
    critic: criticFor(state, llmFor),
    context: AgentContext.load(state.workspace.working_dir, state.agent.agent_context),
    hooks: isEmptyHookConfig(hooks)
      ? null
      : new HookRunner(hooks, { workingDir: state.workspace.working_dir, sessionId: record.id }),
    systemPrompt: state.agent.system_prompt ?? null,
    storedUsage: storedUsage(state),
    // Conversations from before condensers existed have no `condenser` member: none.
    condenser: condenser
      ? new SummarizingCondenser({
          llm: llmFor(condenser.llm ?? { ...state.agent.llm, usage_id: 'condenser' }),
          maxSize: condenser.max_size!,
          keepFirst: condenser.keep_first!,
          maxTokens: condenser.max_tokens ?? null,
        })
      : null,
  });
  const secrets = new ConversationSecrets(() => stateOf(runtime.record).secrets, options.secretBox, logger);
  const runtime: ConversationRuntime = new ConversationRuntime(
    record,
    readHistory,
    agent,
    tools,
    options.log,
    secrets,
    mcp.release,
  );
  oauthState.attach(runtime);
  return runtime;
}

/**
 * The LLMs a running agent takes on OpenHands' switch_llm (Agent.switchLlms), from the switched agent
 * in `state`: its own, the condenser's when it `follows` the agent's model, and a new critic when the
 * critic has no LLM of its own. The agent's switch carries each usage id's figures on (AgentLlms).
 */
export function switchedLlms(
  options: ConversationServiceOptions,
  logger: Logger,
  state: ConversationState,
  condenserFollows: boolean,
): SwitchedLlms {
  const open = (value: string) => (SecretBox.isSealed(value) ? options.secretBox.decrypt(value) : value);
  const llmFor = (spec: LLMSpec) => conversationLLM(options, logger, spec, state, open);
  const switched: SwitchedLlms = { llm: llmFor(state.agent.llm) };
  const condenser = state.agent.condenser?.llm;
  if (condenserFollows && condenser) switched.condenser = llmFor(condenser);
  const critic = state.agent.critic;
  if (critic && critic.kind !== 'PassCritic' && !critic.llm) switched.critic = criticFor(state, llmFor)!;
  return switched;
}

function criticFor(state: ConversationState, llmFor: (spec: LLMSpec) => LLM): Critic | null {
  const spec = state.agent.critic;
  if (!spec) return null;
  if (spec.kind === 'PassCritic') return new PassCritic(spec.mode);
  // Without an LLM of its own the critic uses the agent's model, under its own usage id.
  return new LLMCritic(llmFor(spec.llm ?? { ...state.agent.llm, usage_id: 'critic' }), spec.mode);
}

const storedUsage = (state: ConversationState): Record<string, unknown> =>
  (state.stats as { usage_to_metrics?: Record<string, unknown> }).usage_to_metrics ?? {};

/** An LLM of the conversation under its budget; `open` unseals its secrets (AgentLlms restores its figures). */
function conversationLLM(
  options: ConversationServiceOptions,
  logger: Logger,
  spec: LLMSpec,
  state: ConversationState,
  open: (sealed: string) => string,
): LLM {
  const llm = createLLM(mapLlmSecrets(spec, open), { prices: options.prices, logger });
  llm.metrics.maxBudgetPerTask = state.max_budget_per_task ?? null;
  return llm;
}
