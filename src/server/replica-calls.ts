// Calls a route makes to another replica, for what lives in one replica's memory only (an MCP OAuth
// job waiting for its browser: its PKCE verifier and the promise its callback settles). Behind a load
// balancer the job's status and callback requests land on any replica; the one that did not start the
// job sends the call to the one that did, over cluster/'s forwarding (Redis), and answers what that
// one answered. A single process has no other replica: every call is its own.
import type { ForwardRequest, Ownership } from '../cluster/index.js';
import { unwrap } from '../conversation/forwarding.js';
import { dashedUuid } from '../events/index.js';

/** A forwarded call's handler: runs on the replica that holds what the call needs. */
export type ReplicaCallHandler = (userId: string, args: unknown[]) => Promise<unknown>;

/** The replica another one could not reach (gone, or not answering in time). */
export class ReplicaGoneError extends Error {
  override name = 'ReplicaGoneError';
}

export class ReplicaCalls {
  private readonly handlers = new Map<string, ReplicaCallHandler>();
  /** This replica's tag: its id's 32 hex digits, as ids of what lives here start with. */
  readonly tag: string;

  /** `ownership`: the cluster's (forwarding to the replica named); none in a single process. */
  constructor(
    replicaId: string,
    private readonly ownership?: Pick<Ownership, 'forward'>,
  ) {
    this.tag = replicaId.replaceAll('-', '');
  }

  /** Serves `op` here, for the replicas that send it. */
  serve(op: string, handler: ReplicaCallHandler): void {
    this.handlers.set(op, handler);
  }

  /** Runs a call another replica sent; undefined when nothing here serves its op. */
  handlerOf(request: ForwardRequest): (() => Promise<unknown>) | undefined {
    const handler = this.handlers.get(request.op);
    return handler && (() => handler(request.userId, request.args));
  }

  /**
   * `op` run on the replica tagged `tag` (here when it is this one): its value, its error thrown;
   * ReplicaGoneError when no replica of that tag answers (or there is no other replica).
   */
  async call(tag: string, op: string, userId: string, args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(op);
    if (!handler) throw new Error(`no replica call ${op}`);
    if (tag === this.tag) return handler(userId, args);
    if (!this.ownership || !/^[0-9a-f]{32}$/.test(tag)) throw new ReplicaGoneError(`no replica ${tag}`);
    const replicaId = dashedUuid(tag);
    let reply: Awaited<ReturnType<Ownership['forward']>>;
    try {
      reply = await this.ownership.forward(replicaId, { op, userId, conversationId: '', args });
    } catch {
      throw new ReplicaGoneError(`replica ${replicaId} does not answer`);
    }
    return unwrap(reply);
  }
}
