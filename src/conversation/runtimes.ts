// The runtimes of the conversations in use: looked up (a live runtime's record is the current one),
// built on first use (runtime-builder.ts: the agent, its LLMs, tools, MCP and hooks),
// run in the background with a `full_state` snapshot after each run, and closed after a period
// without use or past the live cap (LiveRuntimes, live-runtimes.ts). ConversationService (service.ts)
// adds the lifecycle and the operations on top.
import { type AgentDefinition, type ExtensionsRepository, run } from '../agent/index.js';
import {
  type ForwardReply,
  type ForwardRequest,
  LocalOwnership,
  OwnedElsewhereError,
  type Ownership,
} from '../cluster/index.js';
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { HookConfig } from '../hooks/index.js';
import type { Logger, PriceTable } from '../llm/index.js';
import type { SecretBox, SettingsService } from '../settings/index.js';
import type { ConversationRecord, Store } from '../store/index.js';
import type { McpPool, SubAgentPort } from '../tools/index.js';
import { ConversationInSandboxError, ConversationNotFoundError } from './errors.js';
import type { EventLog } from './event-log.js';
import { OWNED_OPS, type OwnedOp, replyOf, unwrap } from './forwarding.js';
import { GoalLoops, goalCutOff } from './goal-loop.js';
import { readHistory } from './history-read.js';
import { LiveRuntimes } from './live-runtimes.js';
import { recoverInterrupted, recoverOne } from './recovery.js';
import type { ConversationRuntime } from './runtime.js';
import { buildRuntime, type CreatedConversation, type RuntimeSources } from './runtime-builder.js';
import type { ConversationInfo } from './schemas.js';
import { conversationInfo, fullState } from './state.js';

/** The calls other replicas send that are no conversation's: the one to run for a request, if any. */
export type OtherReplicaCalls = (request: ForwardRequest) => (() => Promise<unknown>) | undefined;

export interface ConversationServiceOptions {
  store: Store;
  log: EventLog;
  settings: SettingsService;
  secretBox: SecretBox;
  /** Folder for per-conversation files (saved outputs, task lists). */
  dataDir: string;
  /** A runtime unused this long is closed (its shell ends); default 20 minutes as in OpenHands. */
  idleTimeoutMs?: number;
  /** Runtimes kept in memory at most; past it the least recently used idle one is closed (default 64). */
  maxLiveConversations?: number;
  /** Overrides for tests and benchmarks (e.g. fast terminal timeouts). */
  toolOptions?: Record<string, unknown>;
  /** Shared MCP connections; the user's mcp_config servers are connected for each runtime. */
  mcp: McpPool;
  /** The web search server a user's search_api_key connects (AGENTD_SEARCH_MCP_URL); default Tavily's. */
  searchMcpUrl?: string;
  /** Server-wide hooks (server configuration), run in every conversation before its own. */
  hooks?: HookConfig | null;
  /** Price overrides for cost (and budgets); the built-in table covers common models. */
  prices?: PriceTable;
  /**
   * Where LLM retries and failures, runs that fail and conversations cut off by a restart are
   * logged (pino's shape; the server passes its logger). Every line carries `conversation_id`.
   */
  logger?: Logger;
  /** Which replica runs which conversation (several replicas); default this process runs them all. */
  ownership?: Ownership;
  /** The home folder the user's skills (agent profiles) and plugins are read from (default the process user's). */
  skillsHome?: string;
  /** The public extensions repository, for a start's `load_public_skills`; default none. */
  extensions?: ExtensionsRepository | null;
}

const SILENT: Logger = { warn() {}, error() {} };

export abstract class ConversationRuntimes {
  protected readonly runtimes: LiveRuntimes;
  protected readonly ownership: Ownership;
  /** The /goal loops under way in this replica's conversations (goal-loop.ts). */
  protected readonly goals = new GoalLoops();

  constructor(protected readonly options: ConversationServiceOptions) {
    this.ownership = options.ownership ?? new LocalOwnership();
    this.runtimes = new LiveRuntimes({
      idleTimeoutMs: options.idleTimeoutMs ?? 20 * 60 * 1000,
      maxLive: options.maxLiveConversations ?? 64,
      // A runtime closed for being idle holds nothing another replica would need to recover.
      onClosed: (id) => {
        this.ownership.release(id).catch((error: unknown) => {
          this.logFor(id).warn({ err: error }, 'could not release the conversation lease');
        });
      },
    });
  }

  /** How many conversations have a runtime in memory now. */
  get liveRuntimes(): number {
    return this.runtimes.size;
  }

  protected get store(): Store {
    return this.options.store;
  }

  async get(userId: string, id: string): Promise<ConversationRecord> {
    // A live runtime holds the newest record, and its conversation exists (delete closes the runtime
    // before the record goes): no store read, no parse, for the conversations clients poll most.
    const record = this.runtimes.get(id)?.record ?? (await this.store.conversations.get(id));
    if (!record || record.ownerId !== userId) throw new ConversationNotFoundError(id);
    return record;
  }

  /**
   * Each record as its ConversationInfo, with its sub-conversations (one store read for all: the
   * children are other conversations' records, found by their parent, on any replica).
   */
  async infos(records: readonly ConversationRecord[]): Promise<ConversationInfo[]> {
    const children = await this.store.conversations.children(records.map((r) => r.id));
    return records.map((r) => conversationInfo(r, children.get(r.id) ?? []));
  }

  async infoOf(record: ConversationRecord): Promise<ConversationInfo> {
    return (await this.infos([record]))[0]!;
  }

  /** A conversation this server runs itself (not a sandboxed one it only mirrors). */
  protected async local(userId: string, id: string): Promise<ConversationRecord> {
    const record = await this.get(userId, id);
    if (record.sandboxId) throw new ConversationInSandboxError(id, record.sandboxId);
    return record;
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

  /** Set once close() began: no runtime is built or interrupted for a task any more. */
  protected closing = false;

  async close(): Promise<void> {
    this.closing = true;
    await this.goals.stopAll();
    await this.runtimes.closeAll();
  }

  protected startRun(runtime: ConversationRuntime): void {
    runtime.beginRun();
    const state = runtime.state;
    runtime.running = runtime
      .loadHistory()
      .then(() =>
        run(runtime.agent, runtime, {
          maxIterations: state.max_iterations,
          stuckDetection: state.stuck_detection,
          stuckThresholds: state.stuck_detection_thresholds,
          maxBudgetPerTask: state.max_budget_per_task ?? null,
        }),
      )
      .catch(async (error: unknown) => {
        // The loop reports agent, LLM and tool failures as events itself; this is a last resort.
        this.logFor(runtime.conversationId).error(
          { error: (error as Error)?.name ?? 'Error', detail: (error as Error)?.message ?? String(error) },
          'conversation run failed',
        );
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
        this.runtimes.idle(runtime);
      });
  }

  protected publishSnapshot(runtime: ConversationRuntime): Promise<void> {
    return this.options.log.publishTransient(runtime.conversationId, () => this.snapshot(runtime.record));
  }

  /**
   * The runtime of a conversation, built on first use (one build even under concurrent calls). A
   * runtime is built only by the lease holder: OwnedElsewhereError when another replica holds it.
   * `created`: what a start is creating (its record is not stored yet: the first append stores it).
   */
  protected async runtime(
    userId: string,
    id: string,
    created?: CreatedConversation,
  ): Promise<ConversationRuntime> {
    let record = created?.record ?? (await this.local(userId, id));
    if (!this.runtimes.get(id)) {
      await this.runtimes.settled(id);
      if (!this.runtimes.get(id)) {
        const claim = await this.ownership.claim(id);
        if (!claim.owned) throw new OwnedElsewhereError(id, claim.holder);
        // Its holder died mid-run: recovered as after a crash before anything else happens to it.
        if (claim.takeover && (await this.recoverConversation(id))) record = await this.local(userId, id);
      }
    }
    return this.runtimes.use(id, async () => {
      const sources: RuntimeSources = {
        options: this.options,
        logger: this.logFor(id),
        readHistory: (points) => readHistory(this.store.events, id, points),
        subAgents: (record: ConversationRecord, types: readonly AgentDefinition[]) =>
          this.subAgentPort(record, types),
      };
      const runtime = await buildRuntime(sources, record, created);
      if (created) runtime.startsEmpty();
      // A loop holds its runtime, so one only now built here has none: a goal the state says is
      // active was cut off (a restart, a lost lease), and is shown so (resumable).
      else if (runtime.state.goal?.active) await goalCutOff(runtime);
      return runtime;
    });
  }

  /** How a conversation's task tool runs its sub-agents (the service's SubAgentTasks). */
  protected abstract subAgentPort(
    record: ConversationRecord,
    types: readonly AgentDefinition[],
  ): SubAgentPort;

  /**
   * Runs `local` here unless another live replica holds the conversation: then the call goes there
   * (its answer or error comes back as if it had run here; OwnerUnavailableError when it is silent).
   */
  protected async onOwner<T>(
    op: OwnedOp,
    userId: string,
    id: string,
    args: unknown[],
    local: () => Promise<T>,
  ): Promise<T> {
    const forward = async (holder: string) =>
      unwrap<T>(await this.ownership.forward(holder, { op, userId, conversationId: id, args }));
    if (!this.runtimes.get(id)) {
      const holder = await this.ownership.holder(id);
      if (holder) return forward(holder);
    }
    try {
      return await local();
    } catch (error) {
      // Claimed by another replica between the look-up and the claim.
      if (error instanceof OwnedElsewhereError) return forward(error.holder);
      throw error;
    }
  }

  /**
   * Runs a call another replica forwarded here: one of a conversation's (this replica holds it, or no
   * one does), or one `others` serves (a route's call about what lives in this replica's memory).
   */
  execute(request: ForwardRequest, others: OtherReplicaCalls = () => undefined): Promise<ForwardReply> {
    return replyOf(async () => {
      const other = others(request);
      if (other) return other();
      if (!(OWNED_OPS as readonly string[]).includes(request.op))
        throw new Error(`unknown call ${request.op}`);
      const method = (this as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[
        request.op
      ]!;
      return method.call(this, request.userId, request.conversationId, ...request.args);
    });
  }

  /** Drops a runtime whose lease another replica took (this one could not renew in time). */
  lost(id: string): void {
    const runtime = this.runtimes.get(id);
    if (!runtime) return;
    this.logFor(id).warn({}, 'conversation lease lost to another replica; its runtime here stops');
    void this.goals.stop(id, false);
    this.runtimes.delete(id);
    runtime.interrupt();
    void (runtime.running ?? Promise.resolve()).catch(() => undefined).then(() => runtime.close());
  }

  /**
   * After a restart: a conversation the store says was running was cut off. It goes to `error`, each
   * action left without an observation gets an AgentErrorEvent (so a later `run` continues), and a
   * ConversationErrorEvent `ServerRestarted` says why the run stopped. `claim` limits it to the
   * conversations no live replica runs (see RecoveryDeps.claim); default all.
   */
  recover(): Promise<number> {
    // Another live replica's conversations are its own: only those whose lease can be taken.
    return recoverInterrupted(
      this.recoveryDeps(),
      async (id) => (await this.ownership.claim(id)).owned,
      (id) => this.ownership.release(id),
    );
  }

  /** Starts serving calls other replicas forward (`others`: see execute), and taking over those whose replica died. */
  serveReplicas(others?: OtherReplicaCalls): void {
    this.ownership.start({
      execute: (request) => this.execute(request, others),
      orphaned: async (id) => {
        await this.recoverConversation(id);
      },
      lost: (id) => this.lost(id),
    });
  }

  /** Recovers a conversation cut off by its replica's end; false when it was not running. */
  protected recoverConversation(id: string): Promise<boolean> {
    return recoverOne(this.recoveryDeps(), id);
  }

  private recoveryDeps() {
    return {
      store: this.store,
      log: this.options.log,
      logFor: (id: string) => this.logFor(id),
    };
  }

  /** The service's logger with the conversation's id on every line. */
  protected logFor(conversationId: string): Logger {
    const logger = this.options.logger;
    if (!logger) return SILENT;
    return {
      warn: (fields, message) => logger.warn({ conversation_id: conversationId, ...fields }, message),
      error: (fields, message) => logger.error({ conversation_id: conversationId, ...fields }, message),
    };
  }
}
