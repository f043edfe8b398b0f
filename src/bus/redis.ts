// The bus of several replicas: a Redis channel per conversation. Subscribers of this process get a
// message synchronously, as on the MemoryBus; other replicas get it through Redis. Redis pub/sub
// may lose messages (a reconnect, a channel not yet subscribed), so this bus only promises order
// and says when something may have been lost (`resync`): the store stays the source of truth and
// readers repair a gap from it (conversation/subscription.ts).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redactUrl } from '../store/index.js';
import type { BusListener, BusMessage, EventBus } from './types.js';

const PREFIX = 'agentd:events:';

interface Subscriber {
  listener: BusListener;
  resync?: () => void;
}

interface Topic {
  subscribers: Set<Subscriber>;
  /** Resolves once Redis confirmed the channel's subscription. */
  ready: Promise<void>;
}

/** The ioredis client class, loaded on first call (see ioredis.ts): a server without Redis never loads it. */
export async function loadRedis(): Promise<typeof Redis> {
  return (await import('./ioredis.js')).Redis;
}

export class RedisBusError extends Error {
  override name = 'RedisBusError';
}

export class RedisBus implements EventBus {
  /** Tells this replica's own messages apart when Redis echoes them back. */
  private readonly origin = randomUUID();
  private readonly topics = new Map<string, Topic>();
  private closed = false;

  private constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
  ) {
    sub.on('messageBuffer', (channel: Buffer, payload: Buffer) => this.received(channel, payload));
    // ioredis subscribes again after a reconnect; what was published meanwhile is gone. The PING
    // answers after those SUBSCRIBEs, so what readers miss from then on reaches them through Redis.
    sub.on('ready', () => {
      this.sub.ping().then(
        () => this.resyncAll(),
        () => undefined,
      );
    });
  }

  /** Connects both connections; an unreachable URL is a RedisBusError in one line. */
  static async connect(url: string, options: { connectTimeoutMs?: number } = {}): Promise<RedisBus> {
    // Loaded here, not at start-up: a server without Redis never pays for the client.
    const Redis = await loadRedis();
    let started = false;
    let firstError: Error | null = null;
    const make = () => {
      const client = new Redis(url, {
        lazyConnect: true,
        connectTimeout: options.connectTimeoutMs ?? 5000,
        maxRetriesPerRequest: 3,
        // At start-up an engine that cannot be reached is an answer, not something to wait for.
        retryStrategy: (attempt) => (started ? Math.min(attempt * 100, 2000) : null),
      });
      // Errors are retried by ioredis; without a listener they would be printed as unhandled.
      client.on('error', (error: Error) => {
        firstError ??= error;
      });
      return client;
    };
    const pub = make();
    const sub = make();
    try {
      await Promise.all([pub.connect(), sub.connect()]);
    } catch (error) {
      pub.disconnect();
      sub.disconnect();
      const reason = (firstError ?? (error as Error)).message;
      throw new RedisBusError(`cannot reach Redis at ${redactUrl(url)}: ${reason}`);
    }
    started = true;
    return new RedisBus(pub, sub);
  }

  /** The command connection, for others on the same Redis (cluster forwarding). */
  get client(): Redis {
    return this.pub;
  }

  publish(conversationId: string, message: BusMessage): void {
    this.deliver(conversationId, message);
    const header = `${this.origin} ${message.seq ?? '-'}\n`;
    // A failed publish is a lost message; subscribers elsewhere repair it by sequence.
    this.pub.publish(PREFIX + conversationId, header + message.json).catch(() => undefined);
  }

  subscribe(conversationId: string, listener: BusListener, resync?: () => void): () => void {
    let topic = this.topics.get(conversationId);
    if (!topic) {
      const ready = this.sub.subscribe(PREFIX + conversationId).then(
        () => undefined,
        () => undefined,
      );
      topic = { subscribers: new Set(), ready };
      this.topics.set(conversationId, topic);
    }
    const subscriber: Subscriber = { listener, resync };
    topic.subscribers.add(subscriber);
    // Until Redis confirms the channel, another replica's message may pass unseen.
    void topic.ready.then(() => {
      if (topic.subscribers.has(subscriber)) subscriber.resync?.();
    });
    return () => {
      const current = this.topics.get(conversationId);
      if (!current?.subscribers.delete(subscriber) || current.subscribers.size > 0) return;
      this.topics.delete(conversationId);
      if (!this.closed) this.sub.unsubscribe(PREFIX + conversationId).catch(() => undefined);
    };
  }

  subscriberCount(conversationId: string): number {
    return this.topics.get(conversationId)?.subscribers.size ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.topics.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }

  private received(channel: Buffer, payload: Buffer): void {
    const name = channel.toString('utf8');
    if (!name.startsWith(PREFIX)) return;
    const newline = payload.indexOf(10);
    if (newline < 0) return;
    const [origin, seq] = payload.subarray(0, newline).toString('utf8').split(' ');
    if (origin === this.origin) return;
    const json = payload.subarray(newline + 1).toString('utf8');
    this.deliver(name.slice(PREFIX.length), { seq: seq === '-' ? null : Number(seq), json });
  }

  private deliver(conversationId: string, message: BusMessage): void {
    const topic = this.topics.get(conversationId);
    if (!topic) return;
    for (const { listener } of topic.subscribers) {
      try {
        listener(message);
      } catch {
        // A failing subscriber must not disturb the others or the publisher; it cleans itself up.
      }
    }
  }

  private resyncAll(): void {
    for (const topic of this.topics.values()) {
      for (const subscriber of topic.subscribers) subscriber.resync?.();
    }
  }
}
