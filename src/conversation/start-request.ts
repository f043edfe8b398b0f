// What a start request becomes before anything is stored: its agent (the request's, its keys sealed,
// or one from the user's settings; its LLMs checked), its sealed secrets, the initial message, the
// working directory, and the defaults taken from the settings. Each refusal is a 422 at its member.
import { mkdirSync } from 'node:fs';
import { DEFAULT_STUCK_THRESHOLDS } from '../agent/index.js';
import { type AnyEvent, newEventId, nowTimestamp, parseMessageEvent } from '../events/index.js';
import { type HookConfig, HookConfigError, isEmptyHookConfig, normalizeHookConfig } from '../hooks/index.js';
import { mapLlmSecrets } from '../llm/index.js';
import { type EffectiveSettings, type SecretBox, settingsLlm } from '../settings/index.js';
import { registeredToolNames } from '../tools/index.js';
import { mapMcpValues, normalizeAgentMcp } from './agent-mcp.js';
import { defaultToolNames } from './agent-schemas.js';
import { requestedAgent } from './agent-settings.js';
import { resolveCondenser } from './condenser.js';
import { InvalidConversationRequestError } from './errors.js';
import { checkRequestedLLMs, checkSettingsLLM } from './llm-checks.js';
import type {
  AgentSpec,
  ConfirmationPolicy,
  LLMSpec,
  SecurityAnalyzer,
  SendMessageRequest,
  StartConversationRequest,
} from './schemas.js';
import { sealSecrets } from './secrets.js';
import type { ConversationState } from './state.js';
import { toolFilterOf, toolNamesOf } from './tools.js';

export const DEFAULT_MAX_ITERATIONS = 500;

/**
 * What seals the keys and secrets a start stores; `openSent` opens an OAuth secret a client sends
 * back as agentd sealed it for the caller (an oauth_state), which it takes whether or not the start
 * says `secrets_encrypted`: a sealed value is never a token itself.
 */
type SealingDeps = { secretBox: Pick<SecretBox, 'encrypt'>; openSent?: (value: string) => string };

/** The request's agent (its key sealed), or one built from the user's stored settings (in clear). */
export function resolveAgent(
  deps: SealingDeps,
  settings: EffectiveSettings | null,
  requested: AgentSpec | undefined,
  /** agentd's `llm_model`: with no agent given, the settings' LLM (key, base URL) with this model. */
  model?: string,
): AgentSpec {
  if (requested) {
    const unknown = toolNamesOf(requested).filter((n) => !registeredToolNames().includes(n));
    if (unknown.length > 0) {
      throw new InvalidConversationRequestError(
        ['body', 'agent', 'tools'],
        `Unknown tools: ${unknown.join(', ')}`,
      );
    }
    checkRequestedLLMs(requested);
    const mcpConfig = normalizeAgentMcp(requested.mcp_config as Record<string, unknown> | null | undefined);
    toolFilterOf(requested); // a filter JavaScript cannot read is refused now (422), not at the first run
    const seal = (llm: LLMSpec): LLMSpec => mapLlmSecrets(llm, (v) => deps.secretBox.encrypt(v));
    const critic = requested.critic?.llm
      ? { critic: { ...requested.critic, llm: seal(requested.critic.llm) } }
      : {};
    const sealOAuth = (v: string) => deps.secretBox.encrypt(deps.openSent?.(v) ?? v);
    const mcp_config = mcpConfig && mapMcpValues(mcpConfig, (v) => deps.secretBox.encrypt(v), sealOAuth);
    return { ...requested, llm: seal(requested.llm), ...critic, mcp_config };
  }
  const llm = settingsLlm(settings, model);
  if (!llm) {
    throw new InvalidConversationRequestError(
      ['body', 'agent'],
      'No agent given and no LLM in the stored settings: send `agent.llm`, or POST /api/settings with llm_model first',
    );
  }
  checkSettingsLLM({
    llm_model: llm.model,
    llm_base_url: (llm.base_url as string | null | undefined) ?? null,
  });
  return {
    kind: 'Agent',
    llm: mapLlmSecrets({ ...llm, usage_id: 'agent' }, (v) => deps.secretBox.encrypt(v)),
    tools: defaultToolNames(settings?.enable_sub_agents).map((name) => ({ name, params: {} })),
  };
}

/** The agent with `text` after its system message suffix (a blank line between them). */
export function withSystemSuffix(agent: AgentSpec, text: string): AgentSpec {
  const context = agent.agent_context ?? {};
  const suffix = [context.system_message_suffix?.trim(), text].filter(Boolean).join('\n\n');
  return { ...agent, agent_context: { ...context, system_message_suffix: suffix } };
}

export const NO_SKILLS = { extended: [] as string[], activated: [] as string[] };

/** The MessageEvent of a user message; a 422 for a role other than user or content it cannot carry. */
export function userMessage(
  request: SendMessageRequest,
  skills: typeof NO_SKILLS,
  loc: string[] = ['body'],
): AnyEvent {
  if ((request.role ?? 'user') !== 'user') {
    throw new InvalidConversationRequestError([...loc, 'role'], "Only messages with role 'user' can be sent");
  }
  const message = parseMessageEvent({
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'user',
    llm_message: { role: 'user', content: request.content ?? [] },
    activated_skills: skills.activated,
    extended_content: skills.extended.map((t) => ({ type: 'text', text: t, cache_prompt: false })),
    kind: 'MessageEvent',
  });
  if (!message.ok)
    throw new InvalidConversationRequestError(
      [...loc, 'content'],
      message.errors[0]?.msg ?? 'invalid message',
    );
  return message.value as AnyEvent;
}

/**
 * Creates the working directory; returns the topmost folder it had to create (null when it
 * existed), so a failed start removes only what it made. A path that cannot be a folder is a 422.
 */
export function makeWorkspace(workingDir: string): string | null {
  try {
    return mkdirSync(workingDir, { recursive: true }) ?? null;
  } catch (error) {
    throw new InvalidConversationRequestError(
      ['body', 'workspace', 'working_dir'],
      `Cannot create the working directory: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** The settings' `security_analyzer` names one ("llm"); anything else means none here. */
export function analyzerFromSettings(name: string | null | undefined): SecurityAnalyzer | null {
  return name?.toLowerCase() === 'llm' ? { kind: 'LLMSecurityAnalyzer' } : null;
}

/** The request's budget, else the user's (settings allow any number; only a positive one limits). */
export function budgetOf(
  requested: number | null | undefined,
  fromSettings: number | null | undefined,
): number | null {
  if (requested !== undefined) return requested;
  return typeof fromSettings === 'number' && fromSettings > 0 ? fromSettings : null;
}

/** The request's hook_config, normalized; a bad one is a 422 pointing at the member. */
export function hookConfigOf(input: unknown): HookConfig | null {
  try {
    const config = normalizeHookConfig(input);
    return isEmptyHookConfig(config) ? null : config;
  } catch (error) {
    if (error instanceof HookConfigError)
      throw new InvalidConversationRequestError(['body', 'hook_config', ...error.path], error.message);
    throw error;
  }
}

/**
 * The settings' confirmation mode as a policy, as OpenHands' app server chooses it: off, no action
 * waits; on with a security analyzer, the actions it rates risky do (ConfirmRisky: HIGH, and any it
 * could not rate); on without one, every action does.
 */
export function policyFromSettings(
  confirmationMode: boolean | null | undefined,
  analyzer: SecurityAnalyzer | null,
): ConfirmationPolicy {
  if (!confirmationMode) return { kind: 'NeverConfirm' };
  return analyzer ? { kind: 'ConfirmRisky' } : { kind: 'AlwaysConfirm' };
}

/**
 * What agentd cannot do is refused before anything is stored, never dropped: a run without the
 * client-side tools it was started with is not the run that was asked for.
 */
export function refuseUnsupported(request: StartConversationRequest): void {
  if (request.client_tools?.length)
    throw new InvalidConversationRequestError(
      ['body', 'client_tools'],
      'agentd runs no client-side tools: start the conversation without them (null or [])',
    );
}

/**
 * The state a new conversation is stored with: the agent (the request's or the settings', its
 * condenser resolved), and every default the request leaves to the settings or to agentd.
 */
export function initialState(
  deps: SealingDeps,
  effective: EffectiveSettings | null,
  request: StartConversationRequest,
  persistenceDir: string,
): ConversationState {
  const resolved = resolveAgent(deps, effective, requestedAgent(request), request.llm_model);
  // OpenHands' agent_launch_additions: the deployment's words, after the agent's own.
  const addition = request.agent_launch_additions?.system_message_suffix_append?.trim();
  const agent: AgentSpec = {
    ...(addition ? withSystemSuffix(resolved, addition) : resolved),
    condenser: resolveCondenser(resolved, effective, (key) => deps.secretBox.encrypt(key)),
  };
  const securityAnalyzer =
    request.security_analyzer !== undefined
      ? request.security_analyzer
      : analyzerFromSettings(effective?.security_analyzer);
  return {
    agent,
    workspace: { working_dir: request.workspace.working_dir, kind: 'LocalWorkspace' },
    persistence_dir: persistenceDir,
    max_iterations: request.max_iterations ?? effective?.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    stuck_detection: request.stuck_detection ?? true,
    ...(request.stuck_detection_thresholds
      ? { stuck_detection_thresholds: { ...DEFAULT_STUCK_THRESHOLDS, ...request.stuck_detection_thresholds } }
      : {}),
    confirmation_policy:
      request.confirmation_policy ?? policyFromSettings(effective?.confirmation_mode, securityAnalyzer),
    security_analyzer: securityAnalyzer,
    activated_knowledge_skills: [],
    invoked_skills: [],
    blocked_actions: {},
    blocked_messages: {},
    last_user_message_id: null,
    stats: { usage_to_metrics: {} },
    secrets: sealSecrets(deps.secretBox, request.secrets ?? {}),
    agent_state: {},
    autotitle: request.autotitle ?? true,
    hook_config: hookConfigOf(request.hook_config),
    max_budget_per_task: budgetOf(request.max_budget_per_task, effective?.max_budget_per_task),
    ...(request.agent_definitions?.length ? { agent_definitions: request.agent_definitions } : {}),
  };
}
