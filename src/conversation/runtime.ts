// The in-memory side of a conversation that is in use: its agent (LLM + tools, the terminal shell
// among them), its run and, once the agent needs it, its events (the agent's history). Idle
// conversations have no runtime; one is built on demand and dropped after a period without use or
// when too many are live (runtimes.ts), so 10k idle conversations cost only their store rows. The
// history is read from the store only by what hands it to the agent (a run, a condensation, an
// answer, a rejection): a message, a status or a setting change on a long conversation does not
// make its whole history resident.
import { type Agent, type AgentHost, ResidentHistory } from '../agent/index.js';
import { type AnyEvent, newEventId, nowTimestamp, type StreamingDeltaEvent } from '../events/index.js';
import type { LlmDelta } from '../llm/index.js';
import { loopTurns } from '../loop/index.js';
import type { ConversationRecord, StoredEvent } from '../store/index.js';
import type { Tool, ToolContext } from '../tools/index.js';
import { type BranchPoint, headAfter } from './branches.js';
import type { EventLog } from './event-log.js';
import type { LoadedHistory } from './history-read.js';
import type { ConfirmationPolicy, ExecutionStatus } from './schemas.js';
import type { ConversationSecrets } from './secrets.js';
import { type ConversationState, type StateKey, stateOf, stateUpdateEvent } from './state.js';

export class ConversationRuntime implements AgentHost {
  readonly conversationId: string;
  /** The run in progress, if any. */
  running: Promise<void> | null = null;
  /**
   * A condensation forced outside a run (POST /condense) is going: its Condensation is appended to
   * the history when its summary call returns, so HEAD may not move meanwhile (navigate refuses).
   */
  condensing = false;
  private pause = false;
  private abort = new AbortController();
  /** The state changes stored so far, in order (see changeState). */
  private stateTurn: Promise<unknown> = Promise.resolve();
  private evictTimer: NodeJS.Timeout | null = null;
  /** Set by the first close; a second (a delete racing an eviction) must not release MCP twice. */
  private closing: Promise<void> | null = null;
  /**
   * The agent's history once loaded: of the active branch (branches.ts), which is every event so far
   * unless the conversation was navigated, what the agent needs resident (agent/resident-history.ts);
   * `seq` is the sequence number of the log's last event.
   */
  private history: ResidentHistory | null = null;
  private seq = 0;
  private loading: Promise<void> | null = null;

  constructor(
    public record: ConversationRecord,
    /** Reads the history of the branch at the given points from the store (history-read.ts). */
    private readonly readHistory: (points: readonly BranchPoint[] | undefined) => Promise<LoadedHistory>,
    readonly agent: Agent,
    readonly tools: Tool[],
    private readonly log: EventLog,
    private readonly secrets: ConversationSecrets,
    /** Lets go of shared resources (MCP connections) when the runtime closes. */
    private readonly release: () => Promise<void> = async () => {},
  ) {
    this.conversationId = record.id;
  }

  get state(): ConversationState {
    return stateOf(this.record);
  }

  get status(): ExecutionStatus {
    return this.record.executionStatus as ExecutionStatus;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get toolContext(): ToolContext {
    return {
      workingDir: this.state.workspace.working_dir,
      conversationId: this.conversationId,
      persistenceDir: this.state.persistence_dir,
      signal: this.abort.signal,
      secrets: () => this.secrets.known(),
      resolveSecrets: () => this.secrets.resolve(),
    };
  }

  /**
   * The agent's history; only after `loadHistory()` resolved (the agent's entry points await it). A
   * new array after each Condensation (ResidentHistory).
   */
  events(): readonly AnyEvent[] {
    if (!this.history) throw new Error('the conversation history is read before it was loaded');
    return this.history.events;
  }

  /**
   * The whole active branch if it is in memory, else null (a reader goes to the store instead): not
   * loaded yet, or a Condensation left out what the LLM no longer sees.
   */
  loadedEvents(): readonly AnyEvent[] | null {
    return this.history && !this.history.partial ? this.history.events : null;
  }

  /**
   * Reads the history from the store once. The read is ordered with the conversation's appends
   * (EventLog.read), and an event is added afterwards only when its sequence number is past the
   * read's last: none is missed or counted twice whichever way an append and the read interleave.
   */
  loadHistory(): Promise<readonly AnyEvent[]> {
    if (this.history && !this.loading) return Promise.resolve(this.history.events);
    this.loading ??= this.log
      .read(this.conversationId, () => this.readHistory(this.state.branch_points))
      .then(({ history, seq }) => {
        this.history = history;
        this.seq = seq;
      })
      .catch((error: unknown) => {
        this.loading = null; // a later call tries again
        throw error;
      });
    // The history as it is now: a Condensation since the read replaced the array.
    return this.loading.then(() => this.events());
  }

  /**
   * The runtime of a conversation a start is creating, built before its record is stored: the
   * history is known to be empty, and every append goes through this runtime (`remember`), so it
   * stays exact without a read from the store.
   */
  startsEmpty(): void {
    if (this.history || this.loading) return;
    this.history = new ResidentHistory();
    this.seq = 0;
  }

  /** `emit` for the start that builds this runtime: the record is stored with these first events. */
  async create(events: AnyEvent[], patch: Partial<ConversationRecord>): Promise<void> {
    const record = { ...this.record, ...patch, updatedAt: new Date().toISOString() };
    const stored = await this.log.create(record, events);
    this.record = record;
    this.remember(events, stored);
  }

  /**
   * Persists and publishes events with a change of the record (`patch`), in one transaction,
   * keeping the record's updated_at current.
   */
  async emit(events: AnyEvent[], patch: Partial<ConversationRecord> = {}): Promise<void> {
    if (events.length === 0) return;
    const moved = headAfter((patch.state ?? this.record.state) as unknown as ConversationState, events);
    const update = {
      ...patch,
      ...(moved ? { state: moved as unknown as Record<string, unknown> } : {}),
      updatedAt: new Date().toISOString(),
    };
    const stored = await this.log.append(this.conversationId, events, update);
    this.record = { ...this.record, ...update };
    this.remember(events, stored);
  }

  /**
   * After HEAD moved (POST /navigate, with the new state in `record`): the history is forgotten, and
   * read again as the new branch by the next call that needs it (a new array, so the agent rebuilds
   * its view). Moving HEAD itself reads nothing of the log.
   */
  rebranch(record: ConversationRecord): void {
    this.record = record;
    this.history = null;
    this.loading = null;
  }

  private remember(events: readonly AnyEvent[], stored: readonly StoredEvent[]): void {
    if (!this.history) return;
    for (let i = 0; i < events.length; i++) {
      if (stored[i]!.seq <= this.seq) continue;
      this.history.add(events[i]!);
      this.seq = stored[i]!.seq;
    }
  }

  async setStatus(status: ExecutionStatus): Promise<void> {
    if (status === this.status) return;
    await this.changeState('execution_status', status, { executionStatus: status });
  }

  /**
   * A piece of the LLM's answer while it streams, to WebSocket readers as a StreamingDeltaEvent:
   * published, never stored (REST and replays never see it), in order with the events around it.
   * Tool-argument pieces are not sent: OpenHands' event has no member for them and its SDK rejects
   * an event with any other member, so they would cost an SDK client an error per piece; the
   * arguments arrive whole in the ActionEvent.
   */
  streamDelta(delta: LlmDelta): void {
    if (delta.type === 'tool_call') return;
    const event: StreamingDeltaEvent = {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'agent',
      content: delta.type === 'content' ? delta.text : null,
      reasoning_content: delta.type === 'reasoning' ? delta.text : null,
      kind: 'StreamingDeltaEvent',
    };
    // Publishing cannot fail for the run: a reader that breaks is dropped by the bus.
    this.log.publishTransient(this.conversationId, event).catch(() => undefined);
  }

  turn(): Promise<void> {
    return loopTurns.turn('background');
  }

  async updateStats(stats: unknown): Promise<void> {
    await this.changeState('stats', stats, (state) => ({
      ...state,
      stats: stats as Record<string, unknown>,
    }));
  }

  confirmationPolicy(): ConfirmationPolicy {
    return this.state.confirmation_policy;
  }

  pauseRequested(): boolean {
    return this.pause;
  }

  /** A new run starts with a clean pause flag and a fresh abort signal. */
  beginRun(): void {
    this.pause = false;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.cancelEviction();
  }

  requestPause(): void {
    this.pause = true;
  }

  interrupt(): void {
    this.pause = true;
    this.abort.abort(new Error('interrupted'));
  }

  /**
   * Records a state change: a ConversationStateUpdateEvent (persisted and published) and the new
   * record, in one transaction. A change of the state is given as a function of the state, applied
   * when its turn comes: changes take turns, each from the state the one before left, so a stats
   * update stored while a switch_llm is (or the other way round) cannot put back what the other changed.
   */
  changeState(
    key: StateKey,
    value: unknown,
    change: Partial<ConversationRecord> | ((state: ConversationState) => ConversationState),
  ): Promise<void> {
    const turn = this.stateTurn.then(() =>
      this.emit(
        [stateUpdateEvent(key, value)],
        typeof change === 'function'
          ? { state: change(this.state) as unknown as Record<string, unknown> }
          : change,
      ),
    );
    this.stateTurn = turn.catch(() => undefined);
    return turn;
  }

  scheduleEviction(ms: number, evict: () => void): void {
    this.cancelEviction();
    this.evictTimer = setTimeout(evict, ms);
    this.evictTimer.unref();
  }

  cancelEviction(): void {
    if (this.evictTimer) clearTimeout(this.evictTimer);
    this.evictTimer = null;
  }

  /** Closes the tools and lets go of shared resources, once however often it is called. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancelEviction();
      this.abort.abort(new Error('closed'));
      await Promise.allSettled(this.tools.map((t) => t.close?.()));
      await this.release();
    })();
    return this.closing;
  }
}
