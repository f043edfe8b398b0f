// Conversation leases and forwarded calls against a real PostgreSQL and Redis, without agentd around
// them: who may claim what, takeover after a holder's end, a silent holder, and a lease lost.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterOwnership, type OwnershipHandlers, OwnerUnavailableError } from '../../src/cluster/index.js';
import { testDatabaseUrl, testRedisUrl, useTestDatabase } from '../support/engines.js';

const redisUrl = testRedisUrl();

describe.skipIf(!testDatabaseUrl() || !redisUrl)('cluster ownership', () => {
  const database = useTestDatabase();
  const opened: ClusterOwnership[] = [];
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((o) => o.close()));
  });
  const open = async (leaseSeconds = 1) => {
    const ownership = await ClusterOwnership.open({
      databaseUrl: database(),
      redisUrl: redisUrl!,
      leaseSeconds,
    });
    opened.push(ownership);
    return ownership;
  };
  const handlers = (overrides: Partial<OwnershipHandlers> = {}): OwnershipHandlers => ({
    execute: async (request) => ({ ok: true, value: `${request.op} done` }),
    orphaned: async () => {},
    lost: () => {},
    ...overrides,
  });

  it('one holder at a time; a clean stop lets another take over (and recover) at once', async () => {
    const [a, b] = [await open(), await open()];
    const id = randomUUID();
    expect(await a.claim(id)).toEqual({ owned: true, takeover: false });
    expect(await b.claim(id)).toEqual({ owned: false, holder: a.replicaId });
    expect(await b.holder(id)).toBe(a.replicaId);
    expect(await a.holder(id)).toBeNull();
    a.start(handlers());
    b.start(handlers());
    expect(await b.forward(a.replicaId, { op: 'run', userId: 'u', conversationId: id, args: [] })).toEqual({
      ok: true,
      value: 'run done',
    });
    await a.close();
    expect(await b.claim(id)).toEqual({ owned: true, takeover: true });
  });

  it('an expired lease is claimed by the heartbeat of another replica, which recovers it', async () => {
    const [a, b] = [await open(), await open()];
    const id = randomUUID();
    await a.claim(id);
    // A stops renewing without a clean stop (as if killed): never started, so no heartbeat.
    const orphaned: string[] = [];
    b.start(handlers({ orphaned: async (c) => void orphaned.push(c) }));
    // (The first test's leases, left to expire by its clean stops, are taken over too.)
    while (!orphaned.includes(id)) await new Promise((r) => setTimeout(r, 50));
    expect(orphaned.filter((c) => c === id)).toHaveLength(1);
    // Recovered and released: free for the next user.
    expect(await b.holder(id)).toBeNull();
  });

  it('a holder that does not answer is an OwnerUnavailableError', async () => {
    const b = await open();
    const silent = randomUUID();
    const id = randomUUID();
    // A replica that holds a lease and listens, but is stuck: it never acknowledges.
    const db = new pg.Client({ connectionString: database() });
    await db.connect();
    await db.query(`INSERT INTO agentd_conversation_leases VALUES ($1, $2, now() + interval '1 minute')`, [
      id,
      silent,
    ]);
    await db.end();
    const listener = new Redis(redisUrl!);
    await listener.subscribe(`agentd:calls:${silent}`);
    try {
      expect(await b.holder(id)).toBe(silent);
      const error = await b
        .forward(silent, { op: 'run', userId: 'u', conversationId: id, args: [] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OwnerUnavailableError);
      expect((error as Error).message).toMatch(/does not answer; its lease expires within 1 s/);
    } finally {
      listener.disconnect();
    }
  });

  it('a lease taken by another replica while its holder could not renew is reported lost', async () => {
    const a = await open();
    const id = randomUUID();
    await a.claim(id);
    const db = new pg.Client({ connectionString: database() });
    await db.connect();
    await db.query(
      `UPDATE agentd_conversation_leases SET replica_id = 'another' WHERE conversation_id = $1`,
      [id],
    );
    await db.end();
    const lost: string[] = [];
    a.start(handlers({ lost: (c) => void lost.push(c) }));
    while (lost.length === 0) await new Promise((r) => setTimeout(r, 50));
    expect(lost).toEqual([id]);
  });
});
