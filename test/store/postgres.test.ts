// The store contract against PostgreSQL (each test on a database of its own), and what only a
// shared database adds: replicas migrating together, appenders on separate pools.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SavedWorkspaces } from '../../src/settings/index.js';
import { migratePostgres, openPostgresStore, PG_MIGRATIONS, type Store } from '../../src/store/index.js';
import { createTestDatabase, testDatabaseUrl } from '../support/engines.js';
import { conversation, event, storeContract } from './contract.js';

const server = testDatabaseUrl();
const drops: (() => Promise<void>)[] = [];
const urls = new WeakMap<Store, string>();
afterAll(async () => {
  for (const drop of drops) await drop();
});

async function freshUrl(): Promise<string> {
  const db = await createTestDatabase();
  drops.push(db.drop);
  return db.url;
}

async function open(url: string): Promise<Store> {
  const store = await openPostgresStore({ url, poolSize: 4 });
  urls.set(store, url);
  return store;
}

if (server) {
  storeContract(
    'postgresql',
    async () => open(await freshUrl()),
    async (store) => {
      await store.close();
      return open(urls.get(store)!);
    },
  );
}

describe.skipIf(!server)('postgresql: several replicas on one database', () => {
  it('migrates once when replicas start together, and not again after', async () => {
    const url = await freshUrl();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 2 }));
    try {
      const ran = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      expect(ran.flat().sort()).toEqual(PG_MIGRATIONS.map((m) => m.version));
      expect(await migratePostgres(pools[0]!)).toEqual([]);
      const next = { version: 99, name: 'test column', sql: 'ALTER TABLE settings ADD COLUMN note text' };
      const again = await Promise.all(pools.map((pool) => migratePostgres(pool, [...PG_MIGRATIONS, next])));
      expect(again.flat()).toEqual([99]);
      const { rows } = await pools[0]!.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual([...PG_MIGRATIONS.map((m) => m.version), 99]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('gives gap-free sequence numbers to appenders on separate pools', async () => {
    const url = await freshUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    try {
      const conv = conversation();
      await a.conversations.create(conv);
      const batches = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).events.append(conv.id, [event(), event(), event()]),
      );
      const stored = (await Promise.all(batches)).flat();
      expect(stored.map((e) => e.seq).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 120 }, (_, i) => i + 1),
      );
      const all = await b.events.after(conv.id, 0, 1000);
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
      // What each appender was told matches what the log holds.
      const byId = new Map(all.map((e) => [e.id, e.seq]));
      for (const e of stored) expect(byId.get(e.id)).toBe(e.seq);
      expect(await a.events.lastSeq(conv.id)).toBe(120);
      // A failed batch leaves no hole.
      await expect(a.events.append(conv.id, [event(), { ...event(), id: all[0]!.id }])).rejects.toThrow();
      expect((await b.events.append(conv.id, [event()]))[0]?.seq).toBe(121);
      expect(await a.events.lastSeq(randomUUID())).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('takes turns across stores: a limit check and the write under it, and settings read-modify-writes', async () => {
    const url = await freshUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    try {
      // 20 starts through two replicas against a limit of 5: the count and the put are one turn.
      const docs = (s: Store) => s.documents('sandboxes');
      const admitted = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const s = i % 2 ? a : b;
          return s.exclusive('sandbox-admission', async () => {
            if ((await docs(s).count({ status: ['RUNNING'] })) >= 5) return false;
            const now = new Date().toISOString();
            await docs(s).put({
              id: randomUUID(),
              ownerId: 'o',
              status: 'RUNNING',
              createdAt: now,
              updatedAt: now,
            });
            return true;
          });
        }),
      );
      expect(admitted.filter(Boolean)).toHaveLength(5);
      expect(await docs(a).count({})).toBe(5);
      // 30 increments of one user's settings through two replicas: none lost.
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const s = i % 2 ? a : b;
          return s.settings.exclusive('u1', async () => {
            const n = Number((await s.settings.get('u1')) ?? '0');
            await s.settings.put('u1', String(n + 1));
          });
        }),
      );
      expect(await a.settings.get('u1')).toBe('30');
      // A failed turn frees the lock.
      await expect(a.exclusive('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await b.exclusive('x', async () => 'free')).toBe('free');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("keeps every saved workspace added through two replicas at once (the user's turn)", async () => {
    const url = await freshUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    try {
      const lists = [new SavedWorkspaces(a.settings), new SavedWorkspaces(b.settings)];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          lists[i % 2]?.add('u1', { workspaces: [{ id: `/w${i}`, name: `w${i}`, path: `/w${i}` }] }),
        ),
      );
      expect((await lists[0]?.list('u1'))?.workspaces).toHaveLength(20);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
