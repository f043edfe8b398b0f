// Several replicas on one PostgreSQL and one Redis: leases in PostgreSQL (leases.ts), calls
// forwarded over Redis (forwarder.ts). A heartbeat renews this replica's leases every third of the
// lease time and takes over the conversations whose holder let its lease expire.
import { randomUUID } from 'node:crypto';
import { RedisForwarder } from './forwarder.js';
import { PgLeases } from './leases.js';
import {
  type Claim,
  type ForwardReply,
  type ForwardRequest,
  type Ownership,
  type OwnershipHandlers,
  OwnerUnavailableError,
} from './types.js';

export interface ClusterOptions {
  databaseUrl: string;
  redisUrl: string;
  /** Lease time in seconds (AGENTD_LEASE_SECONDS, default 7): how long a dead replica's conversations wait. */
  leaseSeconds?: number;
  /** Where heartbeat failures are reported. */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

export class ClusterOwnership implements Ownership {
  /** The leases this replica holds. */
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private handlers: OwnershipHandlers | null = null;
  private beating: Promise<void> | null = null;
  private closed = false;

  private constructor(
    readonly replicaId: string,
    private readonly leases: PgLeases,
    private readonly forwarder: RedisForwarder,
    private readonly warn: NonNullable<ClusterOptions['warn']>,
  ) {}

  static async open(options: ClusterOptions): Promise<ClusterOwnership> {
    const replicaId = randomUUID();
    const leases = await PgLeases.open(options.databaseUrl, options.leaseSeconds ?? 7);
    try {
      const forwarder = await RedisForwarder.open(options.redisUrl, replicaId);
      return new ClusterOwnership(replicaId, leases, forwarder, options.warn ?? (() => {}));
    } catch (error) {
      await leases.close();
      throw error;
    }
  }

  get leaseSeconds(): number {
    return this.leases.seconds;
  }

  async claim(conversationId: string): Promise<Claim> {
    const result = await this.leases.acquire(conversationId, this.replicaId);
    if (!result.acquired) return { owned: false, holder: result.holder };
    this.held.add(conversationId);
    return { owned: true, takeover: result.takenOver };
  }

  async holder(conversationId: string): Promise<string | null> {
    const holder = await this.leases.holder(conversationId);
    return holder === this.replicaId ? null : holder;
  }

  async release(conversationId: string): Promise<void> {
    this.held.delete(conversationId);
    await this.leases.release(conversationId, this.replicaId);
  }

  async forward(holder: string, request: ForwardRequest): Promise<ForwardReply> {
    const reply = await this.forwarder.call(holder, request);
    if (reply === null) throw new OwnerUnavailableError(request.conversationId, this.leases.seconds);
    return reply;
  }

  start(handlers: OwnershipHandlers): void {
    this.handlers = handlers;
    this.forwarder.serve((request) => handlers.execute(request));
    const every = (this.leases.seconds * 1000) / 3;
    this.timer = setInterval(() => {
      this.beating ??= this.heartbeat().finally(() => {
        this.beating = null;
      });
    }, every);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    await this.forwarder.close();
    await this.leases.expireAll(this.replicaId).catch(() => undefined);
    await this.leases.close();
  }

  private async heartbeat(): Promise<void> {
    const handlers = this.handlers!;
    try {
      const mine = [...this.held];
      const kept = await this.leases.renew(this.replicaId, mine);
      for (const id of mine) {
        if (kept.has(id) || !this.held.has(id)) continue;
        this.held.delete(id);
        handlers.lost(id);
      }
      for (const id of await this.leases.expired(20)) {
        if (this.closed) return;
        const claim = await this.claim(id);
        if (!claim.owned) continue;
        try {
          await handlers.orphaned(id);
        } finally {
          await this.release(id);
        }
      }
    } catch (error) {
      this.warn({ err: error }, 'lease heartbeat failed; retrying');
    }
  }
}
