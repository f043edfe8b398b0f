// A live reader of one conversation: subscribe first, replay from the store, then go live, dropping
// what the replay already delivered by sequence number. Nothing is lost between replay and live,
// nothing is delivered twice, and a restart is just a replay from the reader's last sequence.
import type { BusMessage, EventBus } from '../bus/index.js';
import type { EventJson, Store } from '../store/index.js';

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
  /**
   * Delivers a page of replayed events at once, in order (one socket write for the page instead of
   * one per event); false as for `deliver`. Without it each event goes through `deliver`.
   */
  deliverPage?: (events: readonly Pick<EventJson, 'seq' | 'json'>[]) => boolean;
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
  /** Live messages held while the store is read (replay or repair); null when live. */
  let pending: BusMessage[] | null = [];
  /**
   * The last persisted seq delivered. Null only before the replay of `none`/`since` established it;
   * a live message past lastSeq + 1 is a gap (the bus lost one) and is repaired from the store.
   */
  let lastSeq: number | null =
    resend.mode === 'after_seq' ? resend.afterSeq : resend.mode === 'all' ? 0 : null;
  let closed = false;
  let repairAgain = false;

  const send = (message: BusMessage): void => {
    if (closed) return;
    if (message.seq !== null) {
      if (lastSeq !== null && message.seq <= lastSeq) return;
      lastSeq = message.seq;
    }
    if (!deliver(message)) {
      close();
      options.onOverflow();
    }
  };

  const hold = (message: BusMessage): void => {
    pending!.push(message);
    if (pending!.length > maxPending) {
      close();
      options.onOverflow();
    }
  };

  const isGap = (message: BusMessage) =>
    message.seq !== null && lastSeq !== null && message.seq > lastSeq + 1;

  const unsubscribe = bus.subscribe(
    conversationId,
    (message) => {
      if (closed) return;
      if (pending !== null) return hold(message);
      if (!isGap(message)) return send(message);
      pending = [message];
      void repair();
    },
    // The bus may have lost messages (not yet subscribed, a reconnect): read the store again.
    () => {
      if (closed) return;
      if (pending !== null) {
        repairAgain = true;
        return;
      }
      pending = [];
      void repair();
    },
  );

  function close(): void {
    if (closed) return;
    closed = true;
    pending = null;
    unsubscribe();
  }

  const replayPage = async (page: readonly Pick<EventJson, 'seq' | 'json'>[]) => {
    await options.ready?.();
    if (closed) return;
    if (!options.deliverPage) {
      for (const e of page) send({ seq: e.seq, json: e.json });
      return;
    }
    // The same rule as send(): nothing at or before lastSeq goes out twice (pages ascend by seq).
    let start = 0;
    while (lastSeq !== null && start < page.length && page[start]!.seq <= lastSeq) start++;
    const fresh = start === 0 ? page : page.slice(start);
    if (fresh.length === 0) return;
    lastSeq = fresh[fresh.length - 1]!.seq;
    if (!options.deliverPage(fresh)) {
      close();
      options.onOverflow();
    }
  };

  /** Delivers every stored event after lastSeq, page by page; false when closed meanwhile. */
  const readAfter = async (): Promise<boolean> => {
    for (;;) {
      const page = await store.events.after(conversationId, lastSeq ?? 0, REPLAY_PAGE);
      if (closed) return false;
      await replayPage(page);
      if (page.length < REPLAY_PAGE) return true;
    }
  };

  /** Goes live: delivers what was held during a read, repairing again if a gap remains. */
  const flush = (): boolean => {
    // Between the last await and here no bus message can arrive, so the switch to live is exact.
    const held = pending ?? [];
    pending = null;
    for (let i = 0; i < held.length; i++) {
      if (closed) return false;
      if (isGap(held[i]!)) {
        pending = held.slice(i);
        return true;
      }
      send(held[i]!);
    }
    return false;
  };

  /** Reads the store after lastSeq until no gap is left, holding live messages meanwhile. */
  async function repair(): Promise<void> {
    try {
      do {
        repairAgain = false;
        if (!(await readAfter())) return;
      } while (repairAgain || flush());
    } catch {
      // The store cannot be read: this reader cannot be kept exact, so it ends.
      if (!closed) {
        close();
        options.onOverflow();
      }
    }
  }

  const live = (async () => {
    send(options.first());
    // `none` and `since` deliver live events from now: those stored later than this read.
    const now = lastSeq === null ? await store.events.lastSeq(conversationId) : 0;
    if (closed) return;
    if (resend.mode === 'all' || resend.mode === 'after_seq') {
      if (!(await readAfter())) return;
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
    if (lastSeq === null || lastSeq < now) lastSeq = now;
    if (repairAgain || flush()) await repair();
  })();

  return { live, close };
}
