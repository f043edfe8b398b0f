// Publish/subscribe of conversation events. Persisted events carry their sequence number; transient
// ones (full_state snapshots, server errors) carry null. The JSON text is made once per event and
// shared by every subscriber, so fan-out costs no serialization.

export interface BusMessage {
  /** The event's per-conversation sequence number, or null for an event that is not persisted. */
  seq: number | null;
  /** The event as it goes on the wire. */
  json: string;
}

export type BusListener = (message: BusMessage) => void;

export interface EventBus {
  publish(conversationId: string, message: BusMessage): void;
  /**
   * Returns the function that ends the subscription. Listeners must not throw and must not block.
   * A bus that can lose messages (Redis: while it was not yet subscribed, or during a reconnect)
   * calls `resync` when it may have: the reader then reads what it missed from the store.
   */
  subscribe(conversationId: string, listener: BusListener, resync?: () => void): () => void;
  subscriberCount(conversationId: string): number;
  close(): Promise<void>;
}
