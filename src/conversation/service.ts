// Conversation lifecycle: start, message, run, pause, interrupt, confirm, delete, and the reads.
// Every event goes through the EventLog; every state change is a ConversationStateUpdateEvent
// persisted together with the record. Runs happen in the background; `full_state` snapshots are
// published after each run ends and after pause and interrupt (OpenHands clients wait for them).
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  Agent,
  AgentContext,
  type Critic,
  LLMCritic,
  PassCritic,
  recoverAfterCrash,
  rejectPending,
  run,
  SummarizingCondenser,
} from '../agent/index.js';
import { type AnyEvent, dashedUuid, newEventId, nowTimestamp, parseEvent } from '../events/index.js';
import {
  type HookConfig,
  HookConfigError,
  HookRunner,
  isEmptyHookConfig,
  mergeHookConfigs,
  normalizeHookConfig,
} from '../hooks/index.js';
import { createLLM, type LLM, type PriceTable } from '../llm/index.js';
import type { SecretBox, SettingsService } from '../settings/index.js';
import { allItems, type ConversationRecord, type ConversationSearch, type Store } from '../store/index.js';
import { createTools, type McpPool, registeredToolNames } from '../tools/index.js';
import { resolveCondenser } from './condenser.js';
import {
  CondenserUnavailableError,
  ConversationInSandboxError,
  ConversationNotFoundError,
  ConversationRunningError,
  InvalidConversationRequestError,
} from './errors.js';
import type { EventLog } from './event-log.js';
import { ConversationRuntime } from './runtime.js';
import type {
  AgentSpec,
  ConfirmationPolicy,
  ConversationInfo,
  LLMSpec,
  SendMessageRequest,
  StartConversationRequest,
} from './schemas.js';
import {
  type ConversationState,
  conversationInfo,
  fullState,
  stateOf,
  stateUpdateEvent,
  titleFromText,
} from './state.js';
import { toolNamesOf } from './tools.js';

export interface ConversationServiceOptions {
  store: Store;
  log: EventLog;
  settings: SettingsService;
  secretBox: SecretBox;
  /** Folder for per-conversation files (saved outputs, task lists). */
  dataDir: string;
  /** A runtime unused this long is closed (its shell ends); default 20 minutes as in OpenHands. */
  idleTimeoutMs?: number;
  /** Overrides for tests and benchmarks (e.g. fast terminal timeouts). */
  toolOptions?: Record<string, unknown>;
  /** Shared MCP connections; the user's mcp_config servers are connected for each runtime. */
  mcp: McpPool;
  /** Server-wide hooks (server configuration), run in every conversation before its own. */
  hooks?: HookConfig | null;
  /** Price overrides for cost (and budgets); the built-in table covers common models. */
  prices?: PriceTable;
}

const DEFAULT_TOOLS = ['terminal', 'file_editor', 'task_tracker'];
const DEFAULT_MAX_ITERATIONS = 500;

export class ConversationService {
  private readonly runtimes = new Map<string, ConversationRuntime>();
  private readonly loading = new Map<string, Promise<ConversationRuntime>>();
  private readonly idleTimeoutMs: number;

  constructor(private readonly options: ConversationServiceOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 20 * 60 * 1000;
  }

  private get store(): Store {
    return this.options.store;
  }

  /**
   * After a restart: a conversation the store says was running was cut off. It goes to `error`, and
   * each action left without an observation gets an AgentErrorEvent, so a later `run` continues.
   */
  async recover(): Promise<number> {
    let recovered = 0;
    const running = allItems((pageId) =>
      this.store.conversations.search({
        executionStatus: 'running',
        sandboxed: false,
        limit: 100,
        sort: 'CREATED_AT',
        pageId,
      }),
    );
    for await (const record of running) {
      const events = await this.loadEvents(record.id);
      const now = new Date().toISOString();
      await this.options.log.append(
        record.id,
        [...recoverAfterCrash(events), stateUpdateEvent('execution_status', 'error')],
        {
          executionStatus: 'error',
          updatedAt: now,
        },
      );
      recovered++;
    }
    return recovered;
  }

  // ---- reads -------------------------------------------------------------------------------------

  async get(userId: string, id: string): Promise<ConversationRecord> {
    const record = await this.store.conversations.get(id);
    if (!record || record.ownerId !== userId) throw new ConversationNotFoundError(id);
    return this.runtimes.get(id)?.record ?? record;
  }

  /** A conversation this server runs itself (not a sandboxed one it only mirrors). */
  private async local(userId: string, id: string): Promise<ConversationRecord> {
    const record = await this.get(userId, id);
    if (record.sandboxId) throw new ConversationInSandboxError(id, record.sandboxId);
    return record;
  }

  async info(userId: string, id: string): Promise<ConversationInfo> {
    return conversationInfo(await this.get(userId, id));
  }

  async infoMany(userId: string, ids: readonly string[]): Promise<(ConversationInfo | null)[]> {
    const records = await this.store.conversations.getMany(ids);
    return records.map((r) =>
      r && r.ownerId === userId ? conversationInfo(this.runtimes.get(r.id)?.record ?? r) : null,
    );
  }

  async search(
    userId: string,
    query: Omit<ConversationSearch, 'ownerId'>,
  ): Promise<{ items: ConversationRecord[]; nextPageId: string | null }> {
    const page = await this.store.conversations.search({ ...query, ownerId: userId });
    return {
      items: page.items.map((r) => this.runtimes.get(r.id)?.record ?? r),
      nextPageId: page.nextPageId,
    };
  }

  count(userId: string, executionStatus?: string): Promise<number> {
    return this.store.conversations.count({ ownerId: userId, executionStatus });
  }

  /** The finish message, else the last agent message text, else "" (OpenHands' agent_final_response). */
  async finalResponse(userId: string, id: string): Promise<string> {
    await this.get(userId, id);
    const events = this.runtimes.get(id)?.events() ?? (await this.loadEvents(id));
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

  async fullState(userId: string, id: string): Promise<Record<string, unknown>> {
    return this.snapshot(await this.get(userId, id));
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  async start(
    userId: string,
    request: StartConversationRequest,
  ): Promise<{ info: ConversationInfo; created: boolean }> {
    const id = request.conversation_id ? dashedUuid(request.conversation_id) : crypto.randomUUID();
    const existing = await this.store.conversations.get(id);
    if (existing) {
      if (existing.ownerId !== userId)
        throw new InvalidConversationRequestError(
          ['body', 'conversation_id'],
          'Conversation id already in use',
        );
      return { info: conversationInfo(existing), created: false };
    }
    const resolved = await this.resolveAgent(userId, request.agent);
    const effective = await this.options.settings.getEffective(userId);
    const agent: AgentSpec = {
      ...resolved,
      condenser: resolveCondenser(resolved, effective, (key) => this.options.secretBox.encrypt(key)),
    };
    const workingDir = request.workspace.working_dir;
    makeWorkingDir(workingDir);
    const persistenceDir = join(this.options.dataDir, 'conversations', id.replaceAll('-', ''));
    mkdirSync(persistenceDir, { recursive: true });
    const now = new Date().toISOString();
    const state: ConversationState = {
      agent,
      workspace: { working_dir: workingDir, kind: 'LocalWorkspace' },
      persistence_dir: persistenceDir,
      max_iterations: request.max_iterations ?? effective?.max_iterations ?? DEFAULT_MAX_ITERATIONS,
      stuck_detection: request.stuck_detection ?? true,
      confirmation_policy: request.confirmation_policy ?? defaultPolicy(effective?.confirmation_mode),
      security_analyzer:
        request.security_analyzer !== undefined
          ? request.security_analyzer
          : analyzerFromSettings(effective?.security_analyzer),
      activated_knowledge_skills: [],
      invoked_skills: [],
      blocked_actions: {},
      blocked_messages: {},
      last_user_message_id: null,
      stats: { usage_to_metrics: {} },
      secrets: this.sealSecrets(request.secrets ?? {}),
      agent_state: {},
      autotitle: request.autotitle ?? true,
      hook_config: hookConfigOf(request.hook_config),
      max_budget_per_task: budgetOf(request.max_budget_per_task, effective?.max_budget_per_task),
    };
    await this.store.conversations.create({
      id,
      ownerId: userId,
      title: null,
      tags: request.tags ?? {},
      executionStatus: 'idle',
      state: state as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    });
    if (request.initial_message) {
      await this.sendMessage(userId, id, { ...request.initial_message, run: true });
    }
    return { info: await this.info(userId, id), created: true };
  }

  async sendMessage(userId: string, id: string, request: SendMessageRequest): Promise<void> {
    if ((request.role ?? 'user') !== 'user') {
      throw new InvalidConversationRequestError(
        ['body', 'role'],
        "Only messages with role 'user' can be sent",
      );
    }
    const runtime = await this.runtime(userId, id);
    if (!runtime.events().some((e) => e.kind === 'SystemPromptEvent')) {
      await runtime.emit([runtime.agent.systemPromptEvent(runtime.state.workspace.working_dir)]);
    }
    if (runtime.status === 'finished' || runtime.status === 'stuck') await runtime.setStatus('idle');
    // Knowledge skills the message's words trigger ride along with it (OpenHands' agent context).
    const active = new Set(runtime.state.activated_knowledge_skills);
    const text = (request.content ?? []).map((c) => ('text' in c ? c.text : '')).join('\n');
    const skills = runtime.agent.context?.forUserMessage(text, active) ?? { extended: [], activated: [] };
    const message = parseEvent({
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
        ['body', 'content'],
        message.errors[0]?.msg ?? 'invalid message',
      );
    await runtime.emit([message.value as AnyEvent]);
    await runtime.changeState('last_user_message_id', message.value.id, {
      state: {
        ...runtime.state,
        last_user_message_id: message.value.id,
        activated_knowledge_skills: [...active, ...skills.activated],
      },
    });
    if (runtime.record.title === null && runtime.state.autotitle) await this.autotitle(runtime, request);
    if (request.run && !runtime.running) this.startRun(runtime);
  }

  async run(userId: string, id: string): Promise<void> {
    const runtime = await this.runtime(userId, id);
    if (runtime.running) throw new ConversationRunningError(id);
    this.startRun(runtime);
  }

  async pause(userId: string, id: string): Promise<void> {
    const runtime = await this.runtime(userId, id);
    if (runtime.status !== 'idle' && runtime.status !== 'running') return;
    runtime.requestPause();
    await runtime.setStatus('paused');
    await runtime.emit([
      { id: newEventId(), timestamp: nowTimestamp(), source: 'user', kind: 'PauseEvent' } as AnyEvent,
    ]);
    await this.publishSnapshot(runtime);
  }

  async interrupt(userId: string, id: string): Promise<void> {
    const runtime = await this.runtime(userId, id);
    runtime.interrupt();
    // The run notices the abort and ends; its cleanup records the unfinished actions.
    await runtime.running;
    await runtime.setStatus('paused');
    await runtime.emit([
      { id: newEventId(), timestamp: nowTimestamp(), source: 'user', kind: 'InterruptEvent' } as AnyEvent,
    ]);
    await this.publishSnapshot(runtime);
  }

  async respondToConfirmation(userId: string, id: string, accept: boolean, reason: string): Promise<void> {
    const runtime = await this.runtime(userId, id);
    if (accept) {
      if (!runtime.running) this.startRun(runtime);
      return;
    }
    await rejectPending(runtime, reason);
    await this.publishSnapshot(runtime);
  }

  async setConfirmationPolicy(userId: string, id: string, policy: ConfirmationPolicy): Promise<void> {
    const runtime = await this.runtime(userId, id);
    await runtime.changeState('confirmation_policy', policy, {
      state: { ...runtime.state, confirmation_policy: policy },
    });
  }

  async setSecurityAnalyzer(
    userId: string,
    id: string,
    analyzer: Record<string, unknown> | null,
  ): Promise<void> {
    const runtime = await this.runtime(userId, id);
    await runtime.changeState('security_analyzer', analyzer, {
      state: { ...runtime.state, security_analyzer: analyzer },
    });
    runtime.agent.setSecurityAnalyzer(analyzer?.kind === 'LLMSecurityAnalyzer');
  }

  async updateSecrets(userId: string, id: string, secrets: Record<string, unknown>): Promise<void> {
    const record = await this.local(userId, id);
    const state = stateOf(record);
    const next = { ...state, secrets: { ...state.secrets, ...this.sealSecrets(secrets) } };
    await this.store.conversations.update(id, { state: next as unknown as Record<string, unknown> });
    const runtime = this.runtimes.get(id);
    if (runtime) runtime.record = { ...runtime.record, state: next as unknown as Record<string, unknown> };
  }

  /** PATCH: title (stripped) and tags (replaced). False when the conversation is unknown. */
  async update(
    userId: string,
    id: string,
    patch: { title?: string; tags?: Record<string, string> },
  ): Promise<boolean> {
    try {
      await this.local(userId, id);
    } catch (error) {
      if (error instanceof ConversationNotFoundError) return false;
      throw error;
    }
    const title = patch.title?.trim();
    if (patch.title !== undefined && !title)
      throw new InvalidConversationRequestError(['body', 'title'], 'Title must not be blank');
    const changes: Partial<ConversationRecord> = { updatedAt: new Date().toISOString() };
    if (title) changes.title = title;
    const runtime = this.runtimes.get(id);
    if (patch.tags) {
      changes.tags = patch.tags;
      if (runtime) {
        await runtime.changeState('tags', patch.tags, changes);
        return true;
      }
    }
    await this.store.conversations.update(id, changes);
    if (runtime) runtime.record = { ...runtime.record, ...changes };
    return true;
  }

  /**
   * Forces a condensation of the LLM's view (OpenHands' POST /condense): a CondensationRequest, then
   * the condensation at once (after the current step when a run is going). False when the summary
   * call failed (a ConversationErrorEvent says why) or was interrupted.
   */
  async condense(userId: string, id: string): Promise<boolean> {
    const runtime = await this.runtime(userId, id);
    if (!runtime.agent.condenser) throw new CondenserUnavailableError(id);
    const idle = !runtime.running;
    // A fresh abort signal (an earlier interrupt may have spent it), and no eviction meanwhile.
    if (idle) runtime.beginRun();
    try {
      return (await runtime.agent.condense(runtime)) === 'continue';
    } finally {
      if (!runtime.running) runtime.scheduleEviction(this.idleTimeoutMs, () => void this.evict(runtime));
    }
  }

  async ask(userId: string, id: string, question: string): Promise<string> {
    const runtime = await this.runtime(userId, id);
    return runtime.agent.ask(runtime.events(), question);
  }

  /**
   * Who deletes a sandboxed conversation (the control plane); without one, deleting a mirror is a
   * ConversationInSandboxError.
   */
  deleteSandboxed: ((record: ConversationRecord) => Promise<void>) | null = null;

  async delete(userId: string, id: string): Promise<void> {
    const found = await this.get(userId, id);
    if (found.sandboxId && this.deleteSandboxed) return this.deleteSandboxed(found);
    const record = await this.local(userId, id);
    const runtime = this.runtimes.get(id);
    if (runtime) {
      runtime.interrupt();
      await runtime.running?.catch(() => undefined);
      await runtime.close();
      this.runtimes.delete(id);
    }
    await this.store.conversations.delete(id);
    rmSync(stateOf(record).persistence_dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    const all = [...this.runtimes.values()];
    this.runtimes.clear();
    for (const r of all) r.interrupt();
    await Promise.allSettled(all.map((r) => r.running));
    await Promise.allSettled(all.map((r) => r.close()));
  }

  // ---- internals ---------------------------------------------------------------------------------

  private startRun(runtime: ConversationRuntime): void {
    runtime.beginRun();
    const state = runtime.state;
    runtime.running = run(runtime.agent, runtime, {
      maxIterations: state.max_iterations,
      stuckDetection: state.stuck_detection,
      maxBudgetPerTask: state.max_budget_per_task ?? null,
    })
      .catch(async (error: unknown) => {
        // The loop reports agent, LLM and tool failures as events itself; this is a last resort.
        await runtime.emit([
          {
            id: newEventId(),
            timestamp: nowTimestamp(),
            source: 'environment',
            code: (error as Error)?.name ?? 'Error',
            detail: (error as Error)?.message ?? String(error),
            kind: 'ConversationErrorEvent',
          } as AnyEvent,
        ]);
        await runtime.setStatus('error');
      })
      .finally(async () => {
        runtime.running = null;
        await this.publishSnapshot(runtime);
        runtime.scheduleEviction(this.idleTimeoutMs, () => void this.evict(runtime));
      });
  }

  private async evict(runtime: ConversationRuntime): Promise<void> {
    if (runtime.running || this.runtimes.get(runtime.conversationId) !== runtime) return;
    this.runtimes.delete(runtime.conversationId);
    await runtime.close();
  }

  private publishSnapshot(runtime: ConversationRuntime): Promise<void> {
    return this.options.log.publishTransient(runtime.conversationId, () => this.snapshot(runtime.record));
  }

  snapshot(record: ConversationRecord): Record<string, unknown> {
    return {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'environment',
      key: 'full_state',
      value: fullState(this.runtimes.get(record.id)?.record ?? record),
      kind: 'ConversationStateUpdateEvent',
    };
  }

  /** The runtime of a conversation, built on first use (one build even under concurrent calls). */
  private async runtime(userId: string, id: string): Promise<ConversationRuntime> {
    const record = await this.local(userId, id);
    const existing = this.runtimes.get(id);
    if (existing) return existing;
    let loading = this.loading.get(id);
    if (!loading) {
      loading = this.buildRuntime(record).finally(() => this.loading.delete(id));
      this.loading.set(id, loading);
    }
    return loading;
  }

  private async buildRuntime(record: ConversationRecord): Promise<ConversationRuntime> {
    const state = stateOf(record);
    const events = await this.loadEvents(record.id);
    const llm = this.llmFor(state.agent.llm, state);
    const builtIn = createTools(
      toolNamesOf(state.agent),
      this.options.toolOptions ?? {},
      state.persistence_dir,
    );
    const settings = await this.options.settings.getEffective(record.ownerId);
    const mcp = await this.options.mcp.acquire(
      record.ownerId,
      settings?.mcp_config,
      new Set(builtIn.map((t) => t.name)),
    );
    const tools = [...builtIn, ...mcp.tools];
    const hooks = mergeHookConfigs(this.options.hooks, state.hook_config);
    const condenser = state.agent.condenser;
    const agent = new Agent({
      llm,
      tools,
      toolConcurrencyLimit: state.agent.tool_concurrency_limit ?? 1,
      notes: mcp.warnings,
      securityAnalyzer: state.security_analyzer?.kind === 'LLMSecurityAnalyzer',
      critic: this.criticFor(state),
      context: AgentContext.load(state.workspace.working_dir, state.agent.agent_context),
      hooks: isEmptyHookConfig(hooks)
        ? null
        : new HookRunner(hooks, { workingDir: state.workspace.working_dir, sessionId: record.id }),
      // Conversations from before condensers existed have no `condenser` member: none.
      condenser: condenser
        ? new SummarizingCondenser({
            llm: this.llmFor(condenser.llm ?? { ...state.agent.llm, usage_id: 'condenser' }, state),
            maxSize: condenser.max_size!,
            keepFirst: condenser.keep_first!,
            maxTokens: condenser.max_tokens ?? null,
          })
        : null,
    });
    const secrets = (): Record<string, string> => this.openSecrets(stateOf(runtime.record));
    const runtime: ConversationRuntime = new ConversationRuntime(
      record,
      events,
      agent,
      tools,
      this.options.log,
      secrets,
      mcp.release,
    );
    this.runtimes.set(record.id, runtime);
    return runtime;
  }

  private async loadEvents(id: string): Promise<AnyEvent[]> {
    const events: AnyEvent[] = [];
    let after = 0;
    for (;;) {
      const page = await this.store.events.after(id, after, 1000);
      for (const e of page) events.push(JSON.parse(e.json) as AnyEvent);
      if (page.length < 1000) return events;
      after = page[page.length - 1]!.seq;
    }
  }

  private criticFor(state: ConversationState): Critic | null {
    const spec = state.agent.critic;
    if (!spec) return null;
    if (spec.kind === 'PassCritic') return new PassCritic(spec.mode);
    // Without an LLM of its own the critic uses the agent's model, under its own usage id.
    const llm = this.llmFor(spec.llm ?? { ...state.agent.llm, usage_id: 'critic' }, state);
    return new LLMCritic(llm, spec.mode);
  }

  /** An LLM of the conversation, its metrics continuing from the stored stats. */
  private llmFor(spec: LLMSpec, state: ConversationState): LLM {
    const key = spec.api_key ? this.options.secretBox.decrypt(spec.api_key) : null;
    const llm = createLLM({ ...spec, api_key: key }, { prices: this.options.prices });
    const stored = (state.stats as { usage_to_metrics?: Record<string, unknown> }).usage_to_metrics ?? {};
    llm.metrics.restore(stored[llm.metrics.usageId]);
    llm.metrics.maxBudgetPerTask = state.max_budget_per_task ?? null;
    return llm;
  }

  /** The request's agent (its key sealed), or one built from the user's stored settings. */
  private async resolveAgent(userId: string, requested: AgentSpec | undefined): Promise<AgentSpec> {
    if (requested) {
      const unknown = toolNamesOf(requested).filter((n) => !registeredToolNames().includes(n));
      if (unknown.length > 0) {
        throw new InvalidConversationRequestError(
          ['body', 'agent', 'tools'],
          `Unknown tools: ${unknown.join(', ')}`,
        );
      }
      const seal = (llm: LLMSpec): LLMSpec => ({
        ...llm,
        api_key: llm.api_key ? this.options.secretBox.encrypt(llm.api_key) : null,
      });
      const critic = requested.critic?.llm
        ? { critic: { ...requested.critic, llm: seal(requested.critic.llm) } }
        : {};
      return { ...requested, llm: seal(requested.llm), ...critic };
    }
    const settings = await this.options.settings.getEffective(userId);
    if (!settings?.llm_model) {
      throw new InvalidConversationRequestError(
        ['body', 'agent'],
        'No agent given and no LLM in the stored settings: send `agent.llm`, or POST /api/settings with llm_model first',
      );
    }
    return {
      kind: 'Agent',
      llm: {
        model: settings.llm_model,
        api_key: settings.llm_api_key ? this.options.secretBox.encrypt(settings.llm_api_key) : null,
        base_url: settings.llm_base_url ?? null,
        usage_id: 'agent',
      },
      tools: DEFAULT_TOOLS.map((name) => ({ name, params: {} })),
    };
  }

  private sealSecrets(secrets: Record<string, unknown>): ConversationState['secrets'] {
    const sealed: ConversationState['secrets'] = {};
    for (const [name, source] of Object.entries(secrets)) {
      const value = typeof source === 'string' ? source : (source as { value?: unknown }).value;
      if (typeof value !== 'string') {
        throw new InvalidConversationRequestError(
          ['body', 'secrets', name],
          'Only static secret values are supported',
        );
      }
      const description =
        typeof source === 'object' ? (source as { description?: string }).description : undefined;
      sealed[name] = {
        value: this.options.secretBox.encrypt(value),
        ...(description ? { description } : {}),
      };
    }
    return sealed;
  }

  private openSecrets(state: ConversationState): Record<string, string> {
    const open: Record<string, string> = {};
    for (const [name, secret] of Object.entries(state.secrets))
      open[name] = this.options.secretBox.decrypt(secret.value);
    return open;
  }

  private async autotitle(runtime: ConversationRuntime, request: SendMessageRequest): Promise<void> {
    const title = titleFromText((request.content ?? []).map((c) => ('text' in c ? c.text : '')).join(' '));
    if (!title) return;
    await this.store.conversations.update(runtime.conversationId, { title });
    runtime.record = { ...runtime.record, title };
  }
}

/** The settings' `security_analyzer` names one ("llm"); anything else means none here. */
function analyzerFromSettings(name: string | null | undefined): Record<string, unknown> | null {
  return name?.toLowerCase() === 'llm' ? { kind: 'LLMSecurityAnalyzer' } : null;
}

/** The request's budget, else the user's (settings allow any number; only a positive one limits). */
function budgetOf(
  requested: number | null | undefined,
  fromSettings: number | null | undefined,
): number | null {
  if (requested !== undefined) return requested;
  return typeof fromSettings === 'number' && fromSettings > 0 ? fromSettings : null;
}

/** The request's hook_config, normalized; a bad one is a 422 pointing at the member. */
function hookConfigOf(input: unknown): HookConfig | null {
  try {
    const config = normalizeHookConfig(input);
    return isEmptyHookConfig(config) ? null : config;
  } catch (error) {
    if (error instanceof HookConfigError)
      throw new InvalidConversationRequestError(['body', 'hook_config', ...error.path], error.message);
    throw error;
  }
}

function defaultPolicy(confirmationMode: boolean | null | undefined): ConfirmationPolicy {
  return confirmationMode ? { kind: 'AlwaysConfirm' } : { kind: 'NeverConfirm' };
}

/** Creates the workspace folder; a path that cannot be one (NUL, too long, not writable) is a 422, not a 500. */
function makeWorkingDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'invalid path';
    throw new InvalidConversationRequestError(
      ['body', 'workspace', 'working_dir'],
      `Cannot create the working directory (${reason})`,
    );
  }
}
