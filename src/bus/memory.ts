// The embedded default: subscribers of one process, delivered synchronously in publish order.
import type { BusListener, BusMessage, EventBus } from './types.js';

export class MemoryBus implements EventBus {
  private readonly topics = new Map<string, Set<BusListener>>();

  publish(conversationId: string, message: BusMessage): void {
    const listeners = this.topics.get(conversationId);
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener(message);
      } catch {
        // A failing subscriber must not disturb the others or the publisher; it cleans itself up.
      }
    }
  }

  subscribe(conversationId: string, listener: BusListener): () => void {
    let listeners = this.topics.get(conversationId);
    if (!listeners) {
      listeners = new Set();
      this.topics.set(conversationId, listeners);
    }
    listeners.add(listener);
    return () => {
      const set = this.topics.get(conversationId);
      if (!set) return;
      set.delete(listener);
      if (set.size === 0) this.topics.delete(conversationId);
    };
  }

  subscriberCount(conversationId: string): number {
    return this.topics.get(conversationId)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.topics.clear();
  }
}
