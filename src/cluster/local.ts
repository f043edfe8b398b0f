// The embedded default: one process, so every conversation is this replica's and nothing is forwarded.
import { randomUUID } from 'node:crypto';
import type { Claim, ForwardReply, Ownership } from './types.js';

export class LocalOwnership implements Ownership {
  readonly replicaId = randomUUID();

  async claim(): Promise<Claim> {
    return { owned: true, takeover: false };
  }

  async holder(): Promise<string | null> {
    return null;
  }

  async release(): Promise<void> {}

  forward(): Promise<ForwardReply> {
    // holder() never names another replica, so nothing is ever forwarded.
    return Promise.reject(new Error('a single replica forwards nothing'));
  }

  start(): void {}

  async close(): Promise<void> {}
}
