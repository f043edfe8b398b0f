// A live reader of one conversation: subscribe first, replay from the store, then go live, dropping
// what the replay already delivered by sequence number. Nothing is lost between replay and live,
// nothing is delivered twice, and a restart is just a replay from the reader's last sequence.
import type { BusMessage, EventBus } from '../bus/index.js';
import type { Store, StoredEvent } from '../store/index.js';

export type Resend =
  | { mode: 'none' }
  | { mode: 'all' }
  | { mode: 'since'; afterTimestamp: string }
  /** Every persisted event with seq > afterSeq (agentd's exact cursor). */
  | { mode: 'after_seq'; afterSeq: number };

export interface SubscriptionOptions {
  bus: EventBus;
  store: Store;
  conversationId: string;
  resend: Resend;
  /** The first message delivered (the full_state snapshot), made after subscribing. */
  first: () => BusMessage;
  /** Delivers one message; false means the reader cannot keep up and the subscription ends. */
  deliver: (message: BusMessage) => boolean;
  /** Waits while the reader is busy, during replay (backpressure instead of buffering the history). */
  ready?: () => Promise<void>;
  /** Live messages held while the replay runs; beyond this the reader is too slow. */
  maxPending?: number;
  onOverflow: () => void;
}

const REPLAY_PAGE = 500;

export interface Subscription {
  /** Resolves when the replay is done and the reader is live. */
  readonly live: Promise<void>;
  close(): void;
}

export function subscribe(options: SubscriptionOptions): Subscription {
  const { bus, store, conversationId, resend, deliver } = options;
  const maxPending = options.maxPending ?? 10_000;
  let pending: BusMessage[] | null = [];
  let lastSeq = resend.mode === 'after_seq' ? resend.afterSeq : 0;
  let closed = false;

  const send = (message: BusMessage): void => {
    if (closed) return;
    if (message.seq !== null) {
      if (message.seq <= lastSeq) return;
      lastSeq = message.seq;
    }
    if (!deliver(message)) {
      close();
      options.onOverflow();
    }
  };

  const unsubscribe = bus.subscribe(conversationId, (message) => {
    if (pending === null) return send(message);
    pending.push(message);
    if (pending.length > maxPending) {
      close();
      options.onOverflow();
    }
  });

  function close(): void {
    if (closed) return;
    closed = true;
    pending = null;
    unsubscribe();
  }

  const replayPage = async (page: StoredEvent[]) => {
    await options.ready?.();
    for (const e of page) send({ seq: e.seq, json: e.json });
  };

  const live = (async () => {
    send(options.first());
    if (resend.mode === 'all' || resend.mode === 'after_seq') {
      for (;;) {
        const page = await store.events.after(conversationId, lastSeq, REPLAY_PAGE);
        if (closed) return;
        await replayPage(page);
        if (page.length < REPLAY_PAGE) break;
      }
    } else if (resend.mode === 'since') {
      let pageId: string | undefined;
      do {
        const page = await store.events.search(conversationId, {
          timestampGte: resend.afterTimestamp,
          pageId,
          limit: REPLAY_PAGE,
          order: 'asc',
        });
        if (closed) return;
        await replayPage(page.items);
        pageId = page.nextPageId ?? undefined;
      } while (pageId);
    }
    // Between the last await and here no bus message can arrive, so the switch to live is exact.
    const held = pending ?? [];
    pending = null;
    for (const message of held) send(message);
  })();

  return { live, close };
}
