// Calls forwarded between replicas over Redis: each replica listens on its own channel; a call is
// acknowledged at once and answered when done, on the caller's reply channel. No acknowledgement in
// time means the holder is gone (or cut off), which the caller reports as a 503.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadRedis } from '../bus/index.js';
import type { ForwardReply, ForwardRequest } from './types.js';

const CALLS = 'agentd:calls:';
const REPLIES = 'agentd:replies:';

interface Envelope {
  id: string;
  from: string;
  request: ForwardRequest;
}

type Answer = { id: string; ack: true } | { id: string; reply: ForwardReply };

interface Waiting {
  acked: boolean;
  resolve: (reply: ForwardReply | null) => void;
  timer: NodeJS.Timeout;
}

export interface ForwarderOptions {
  /** How long the holder has to acknowledge a call (default 3 s). */
  ackTimeoutMs?: number;
  /** How long a call may run on the holder (default 10 minutes: `ask` waits for an LLM). */
  callTimeoutMs?: number;
}

export class RedisForwarder {
  private readonly waiting = new Map<string, Waiting>();
  private handler: ((request: ForwardRequest) => Promise<ForwardReply>) | null = null;

  private constructor(
    private readonly replicaId: string,
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly options: Required<ForwarderOptions>,
  ) {
    sub.on('message', (channel: string, text: string) => {
      if (channel === CALLS + replicaId) void this.onCall(text);
      else if (channel === REPLIES + replicaId) this.onAnswer(text);
    });
  }

  static async open(url: string, replicaId: string, options: ForwarderOptions = {}): Promise<RedisForwarder> {
    const Redis = await loadRedis();
    const pub = new Redis(url, { maxRetriesPerRequest: 3 });
    const sub = new Redis(url, { maxRetriesPerRequest: 3 });
    pub.on('error', () => undefined);
    sub.on('error', () => undefined);
    await sub.subscribe(CALLS + replicaId, REPLIES + replicaId);
    return new RedisForwarder(replicaId, pub, sub, {
      ackTimeoutMs: options.ackTimeoutMs ?? 3000,
      callTimeoutMs: options.callTimeoutMs ?? 10 * 60_000,
    });
  }

  serve(handler: (request: ForwardRequest) => Promise<ForwardReply>): void {
    this.handler = handler;
  }

  /** The holder's reply, or null when it did not acknowledge (or answer) in time. */
  call(holder: string, request: ForwardRequest): Promise<ForwardReply | null> {
    const id = randomUUID();
    return new Promise((resolve) => {
      const waiting: Waiting = {
        acked: false,
        resolve: (reply) => {
          clearTimeout(waiting.timer);
          this.waiting.delete(id);
          resolve(reply);
        },
        timer: setTimeout(() => waiting.resolve(null), this.options.ackTimeoutMs),
      };
      this.waiting.set(id, waiting);
      const envelope: Envelope = { id, from: this.replicaId, request };
      this.pub.publish(CALLS + holder, JSON.stringify(envelope)).then(
        // Nobody listens on that channel: the holder is gone.
        (receivers) => receivers === 0 && waiting.resolve(null),
        () => waiting.resolve(null),
      );
    });
  }

  async close(): Promise<void> {
    for (const waiting of this.waiting.values()) waiting.resolve(null);
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }

  private async onCall(text: string): Promise<void> {
    const envelope = JSON.parse(text) as Envelope;
    const answer = (a: Answer) => this.pub.publish(REPLIES + envelope.from, JSON.stringify(a)).catch(() => 0);
    await answer({ id: envelope.id, ack: true });
    const reply: ForwardReply = this.handler
      ? await this.handler(envelope.request)
      : { ok: false, error: { name: 'Error', message: 'not serving calls', fields: {} } };
    await answer({ id: envelope.id, reply });
  }

  private onAnswer(text: string): void {
    const answer = JSON.parse(text) as Answer;
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    if ('reply' in answer) {
      waiting.resolve(answer.reply);
      return;
    }
    if (waiting.acked) return;
    waiting.acked = true;
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => waiting.resolve(null), this.options.callTimeoutMs);
  }
}
