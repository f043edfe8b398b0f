// The one path every event takes: the store gives it the next sequence number and persists it
// (with any conversation-record change, in one transaction), then the bus publishes it.
// Work on one conversation is serialized, so publish order always equals sequence order and a
// snapshot published after an append never overtakes it.
import type { EventBus } from '../bus/index.js';
import type {
  ConversationPatch,
  ConversationRecord,
  StorableEvent,
  Store,
  StoredEvent,
} from '../store/index.js';

export class EventLog {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
  ) {}

  append(
    conversationId: string,
    events: readonly StorableEvent[],
    update?: ConversationPatch,
  ): Promise<StoredEvent[]> {
    return this.enqueue(conversationId, async () => {
      const stored = await this.store.events.append(conversationId, events, update);
      for (const s of stored) this.bus.publish(conversationId, { seq: s.seq, json: s.json });
      return stored;
    });
  }

  /** Creates a conversation with its first events (one transaction), then publishes them. */
  create(record: ConversationRecord, events: readonly StorableEvent[]): Promise<StoredEvent[]> {
    return this.enqueue(record.id, async () => {
      const stored = await this.store.events.create(record, events);
      for (const s of stored) this.bus.publish(record.id, { seq: s.seq, json: s.json });
      return stored;
    });
  }

  /** Publishes an event that is not persisted (full_state snapshots), after every pending append. */
  publishTransient(conversationId: string, event: object | (() => object | Promise<object>)): Promise<void> {
    // Nothing pending (the usual case for a streamed LLM delta): published now, already in order.
    if (typeof event !== 'function' && !this.tails.has(conversationId)) {
      try {
        this.bus.publish(conversationId, { seq: null, json: JSON.stringify(event) });
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.enqueue(conversationId, async () => {
      const value = typeof event === 'function' ? await event() : event;
      this.bus.publish(conversationId, { seq: null, json: JSON.stringify(value) });
    });
  }

  /**
   * Runs `work` after every pending append of the conversation and before any later one, so it
   * reads the log and the record as of one moment (a fork copies them while a run goes on).
   */
  read<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    return this.enqueue(conversationId, work);
  }

  private enqueue<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(conversationId) ?? Promise.resolve();
    const next = previous.then(work);
    // Keep the chain going after a failure, and drop it once idle.
    const tail = next.catch(() => undefined);
    this.tails.set(conversationId, tail);
    void tail.then(() => {
      if (this.tails.get(conversationId) === tail) this.tails.delete(conversationId);
    });
    return next;
  }
}
