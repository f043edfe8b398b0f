// Which replica runs a conversation. A conversation's runtime (its agent, shell and run) lives on
// exactly one replica at a time: the holder of its lease. Others forward what needs the runtime.

/** The answer to a claim: this replica holds the lease now, or another live replica does. */
export type Claim =
  | {
      owned: true;
      /**
       * The lease was another replica's, which let it expire (it died or stopped): the conversation
       * may have been cut off mid-run and is recovered as after a crash before it is used.
       */
      takeover: boolean;
    }
  | { owned: false; holder: string };

/** A call forwarded to the replica that holds a conversation. */
export interface ForwardRequest {
  op: string;
  userId: string;
  conversationId: string;
  args: unknown[];
}

/** The outcome of a forwarded call, as it travels back. */
export type ForwardReply =
  | { ok: true; value: unknown }
  | { ok: false; error: { name: string; message: string; fields: Record<string, unknown> } };

export interface OwnershipHandlers {
  /** Runs a forwarded call on this replica. */
  execute(request: ForwardRequest): Promise<ForwardReply>;
  /** A conversation whose holder let its lease expire, now claimed by this replica: recover it. */
  orphaned(conversationId: string): Promise<void>;
  /** This replica lost a lease it held (it could not renew in time): stop using the runtime. */
  lost(conversationId: string): void;
}

export interface Ownership {
  /** This replica's id (random per process). */
  readonly replicaId: string;
  /** Takes the lease for this replica unless another live replica holds it. */
  claim(conversationId: string): Promise<Claim>;
  /** The other live replica holding the lease, or null (free, expired, or this replica's). */
  holder(conversationId: string): Promise<string | null>;
  /** Lets go of a lease (the runtime closed); no-op when not held. */
  release(conversationId: string): Promise<void>;
  /** Sends a call to the holder and waits for its reply; OwnerUnavailableError when it does not answer. */
  forward(holder: string, request: ForwardRequest): Promise<ForwardReply>;
  /** Starts serving forwarded calls, heartbeats and the takeover of expired leases. */
  start(handlers: OwnershipHandlers): void;
  /** Stops; the leases held are left to expire at once, so another replica recovers them. */
  close(): Promise<void>;
}

/** The holder of a conversation did not answer a forwarded call (answered as a 503). */
export class OwnerUnavailableError extends Error {
  override name = 'OwnerUnavailableError';
  constructor(
    readonly conversationId: string,
    readonly leaseSeconds: number,
  ) {
    super(
      `The replica running conversation ${conversationId} does not answer; its lease expires within ${leaseSeconds} s, after which another replica takes the conversation over. Retry then.`,
    );
  }
}

/** A conversation held by another replica, found while claiming it (the caller forwards instead). */
export class OwnedElsewhereError extends Error {
  override name = 'OwnedElsewhereError';
  constructor(
    readonly conversationId: string,
    readonly holder: string,
  ) {
    super(`Conversation ${conversationId} runs on replica ${holder}`);
  }
}
