// The conversations kept live in memory, and when they are let go. A runtime (agent, tools, shell,
// browser, MCP connections) is built on first use and closed again when it has gone unused for the
// idle timeout, or, past `maxLive` runtimes, when it is the least recently used idle one. Closing
// loses nothing: the store holds the conversation, and the next use builds the runtime again.
// Runtimes in use are never closed: a run going, one waiting for the user's confirmation (kept
// for the cap), or a service call holding it (`hold`).
import type { ConversationRuntime } from './runtime.js';

export interface LiveRuntimesOptions {
  /** A runtime unused this long is closed. */
  idleTimeoutMs: number;
  /** Past this many live runtimes, the least recently used idle one is closed. */
  maxLive: number;
  /** Told when a runtime is let go for good (idle, over the cap, deleted), not at shutdown. */
  onClosed?: (id: string) => void;
}

export class LiveRuntimes {
  /** In order of use, least recent first (a use moves a runtime to the end). */
  private readonly live = new Map<string, ConversationRuntime>();
  private readonly loading = new Map<string, Promise<ConversationRuntime>>();
  /** Service calls working with a runtime outside a run (ask, condense, a message being sent). */
  private readonly holds = new Map<ConversationRuntime, number>();
  /** Closes under way, so `closeAll` can wait for them. */
  private readonly closing = new Set<Promise<void>>();
  /** False after a scan for the cap found nothing to close, until a runtime may have become idle. */
  private mayEvict = true;

  constructor(private readonly options: LiveRuntimesOptions) {}

  /** The live runtime of a conversation, if there is one; a read, not a use. */
  get(id: string): ConversationRuntime | undefined {
    return this.live.get(id);
  }

  get size(): number {
    return this.live.size;
  }

  /** Waits for a runtime being built to be built (or to fail). */
  async settled(id: string): Promise<void> {
    await this.loading.get(id)?.catch(() => undefined);
  }

  /**
   * The runtime of a conversation, built on first use (one build even under concurrent calls). It
   * is held until the next turn of the event loop, so the caller can start a run (or `hold` it)
   * before another conversation's use could close it for the cap.
   */
  async use(id: string, build: () => Promise<ConversationRuntime>): Promise<ConversationRuntime> {
    const existing = this.live.get(id);
    if (existing) {
      this.live.delete(id);
      this.live.set(id, existing);
      this.holdUntilNextTurn(existing);
      return existing;
    }
    let loading = this.loading.get(id);
    if (!loading) {
      loading = build()
        .then((runtime) => {
          this.live.set(id, runtime);
          this.holdUntilNextTurn(runtime);
          return runtime;
        })
        .finally(() => this.loading.delete(id));
      this.loading.set(id, loading);
    }
    return loading;
  }

  /** Keeps the runtime from being closed while `work` goes on. */
  async hold<T>(runtime: ConversationRuntime, work: () => Promise<T>): Promise<T> {
    this.acquire(runtime);
    try {
      return await work();
    } finally {
      this.release(runtime);
    }
  }

  /**
   * Says a runtime may have nothing left to do (a use or a run ended): unless it is busy, its idle
   * clock starts; and the cap is enforced, as it may have been left exceeded while all were busy.
   */
  idle(runtime: ConversationRuntime): void {
    if (!this.busy(runtime)) this.mayEvict = true;
    if (this.live.get(runtime.conversationId) === runtime && !this.busy(runtime)) {
      runtime.scheduleEviction(this.options.idleTimeoutMs, () => this.evict(runtime));
    }
    this.enforceCap();
  }

  /** Forgets a runtime its owner closes itself (a deleted conversation). */
  delete(id: string): void {
    this.live.get(id)?.cancelEviction();
    if (this.live.delete(id)) this.options.onClosed?.(id);
  }

  /** Interrupts every run, waits for them, and closes every runtime (server shutdown). */
  async closeAll(): Promise<void> {
    await Promise.allSettled(this.loading.values());
    const all = [...this.live.values()];
    this.live.clear();
    for (const runtime of all) runtime.interrupt();
    await Promise.allSettled(all.map((r) => r.running));
    await Promise.allSettled([...all.map((r) => r.close()), ...this.closing]);
  }

  private holdUntilNextTurn(runtime: ConversationRuntime): void {
    this.acquire(runtime);
    setImmediate(() => this.release(runtime));
    this.enforceCap();
  }

  private acquire(runtime: ConversationRuntime): void {
    this.holds.set(runtime, (this.holds.get(runtime) ?? 0) + 1);
    runtime.cancelEviction();
  }

  private release(runtime: ConversationRuntime): void {
    const left = (this.holds.get(runtime) ?? 1) - 1;
    if (left > 0) this.holds.set(runtime, left);
    else this.holds.delete(runtime);
    this.idle(runtime);
  }

  private busy(runtime: ConversationRuntime): boolean {
    return runtime.running !== null || this.holds.has(runtime);
  }

  /**
   * Past the cap, closes the least recently used runtimes that are idle, until under it again. A
   * runtime stops being busy only where `idle` follows (a run's end, a hold's release): after a scan
   * that found none to close, the next waits for one, so a burst of running conversations past the
   * cap is not scanned whole on every use and release (that was quadratic in the burst).
   */
  private enforceCap(): void {
    if (this.live.size <= this.options.maxLive || !this.mayEvict) return;
    // Deleting the entry being visited does not disturb a Map's iteration.
    for (const runtime of this.live.values()) {
      if (this.live.size <= this.options.maxLive) return;
      // Waiting for the user's confirmation is a pause in a run, not the end of one.
      if (this.busy(runtime) || runtime.status === 'waiting_for_confirmation') continue;
      this.evict(runtime);
    }
    this.mayEvict = false;
  }

  private evict(runtime: ConversationRuntime): void {
    if (this.busy(runtime) || this.live.get(runtime.conversationId) !== runtime) return;
    this.live.delete(runtime.conversationId);
    this.options.onClosed?.(runtime.conversationId);
    const closed = runtime.close().finally(() => this.closing.delete(closed));
    this.closing.add(closed);
  }
}
