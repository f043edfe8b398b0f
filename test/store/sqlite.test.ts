import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, openSqliteStore, type Store } from '../../src/store/index.js';
import { storeContract } from './contract.js';

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
