import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openSqliteStore, type Store } from '../../src/store/index.js';
import { DELETE_CHUNK } from '../../src/store/sqlite/store.js';
import { conversation, event, storeContract } from './contract.js';

const dirs: string[] = [];
const file = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-store-'));
  dirs.push(dir);
  return join(dir, 'agentd.db');
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const paths = new WeakMap<Store, string>();
storeContract(
  'sqlite file',
  async () => {
    const path = file();
    const store = openSqliteStore({ path });
    paths.set(store, path);
    return store;
  },
  async (store) => {
    const path = paths.get(store)!;
    await store.close();
    const again = openSqliteStore({ path });
    paths.set(again, path);
    return again;
  },
);
storeContract('sqlite memory', async () => openSqliteStore({ memory: true }));

describe('sqlite migrations', () => {
  it('runs each migration once and upgrades an older database', () => {
    const path = file();
    const db = new Database(path);
    expect(migrate(db, MIGRATIONS.slice(0, 1))).toEqual([1]);
    const next = { version: 99, name: 'test column', sql: 'ALTER TABLE settings ADD COLUMN note TEXT' };
    expect(migrate(db, [...MIGRATIONS, next])).toEqual([...MIGRATIONS.slice(1).map((m) => m.version), 99]);
    expect(migrate(db, [...MIGRATIONS, next])).toEqual([]);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toEqual([...MIGRATIONS.map((m) => m.version), 99]);
    db.close();
  });

  it('opens in WAL mode', async () => {
    const path = file();
    const store = openSqliteStore({ path });
    await store.close();
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});

describe('sqlite delete', () => {
  const rows = (path: string) => {
    const db = new Database(path, { readonly: true });
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const found = { conversations: count('conversations'), events: count('events') };
    db.close();
    return found;
  };

  it('hides the conversation at once, removes its events a chunk at a time, and the next open finishes a delete cut off', async () => {
    const path = file();
    const store = openSqliteStore({ path });
    const conv = conversation();
    await store.conversations.create(conv);
    const events = Array.from({ length: 4 * DELETE_CHUNK }, () => event());
    for (let i = 0; i < events.length; i += 1000)
      await store.events.append(conv.id, events.slice(i, i + 1000));

    const deleting = store.conversations.delete(conv.id);
    await new Promise((resolve) => setImmediate(resolve));
    // Under way: no read finds the conversation or any of its events.
    expect(await store.conversations.get(conv.id)).toBeNull();
    expect(await store.conversations.owner(conv.id)).toBeNull();
    expect(
      (await store.conversations.search({ ownerId: conv.ownerId, limit: 10, sort: 'CREATED_AT' })).items,
    ).toEqual([]);
    expect(await store.events.after(conv.id, 0, 10)).toEqual([]);
    expect(await store.events.getManyOfOwner(conv.ownerId, [events[events.length - 1]!.id])).toEqual([null]);
    expect(await store.events.countOfOwner(conv.ownerId, {})).toBe(0);

    // Cut off (the store closed under it, as by a crash): part of the events are still in the file.
    await store.close();
    await expect(deleting).rejects.toThrow();
    const left = rows(path);
    expect(left.conversations).toBe(1);
    expect(left.events).toBeGreaterThan(0);
    expect(left.events).toBeLessThan(events.length);

    const again = openSqliteStore({ path });
    expect(rows(path)).toEqual({ conversations: 0, events: 0 });
    // Its id is free again.
    await again.conversations.create(conv);
    expect(await again.conversations.get(conv.id)).toMatchObject({ id: conv.id });
    await again.close();
  });
});
