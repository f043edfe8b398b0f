// The embedded store commits appends that come together in one transaction (write-group.ts). What
// must hold: an append is answered only once committed; a read commits the open group first; an
// append that fails is rolled back alone; a commit that fails fails every append of its group and
// leaves the sequence numbers right. A second connection to the same file sees only what is committed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { conversationRecord } from '../support/records.js';
import { event, message } from './contract.js';

let dir: string;
let store: Store;
let observer: Database.Database;
/** Whether the store may keep its group open (a server says so while starts wait for their turn). */
let holdOpen = false;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-group-'));
  store = openSqliteStore({ path: join(dir, 'agentd.db'), holdWritesOpen: () => holdOpen });
  observer = new Database(join(dir, 'agentd.db'));
  holdOpen = false;
});
afterEach(async () => {
  observer.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Events committed, as another connection sees them. */
const committed = () => observer.prepare('SELECT count(*) FROM events').pluck().get() as number;

async function conversation(): Promise<string> {
  const record = conversationRecord();
  await store.conversations.create(record);
  return record.id;
}

describe('sqlite group commit', () => {
  it('answers appends that come together once their one transaction is committed', async () => {
    const [a, b] = [await conversation(), await conversation()];
    holdOpen = true;
    let answered = 0;
    const appends = [a, b].map((id) =>
      store.events.append(id, [event(), message('hi')]).then((stored) => {
        answered++;
        return stored;
      }),
    );
    const create = store.events.create(conversationRecord(), [message('first')]);
    // A turn of the loop later, held open: nothing is committed, no one answered.
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed()).toBe(0);
    expect(answered).toBe(0);
    holdOpen = false;
    const stored = await Promise.all(appends);
    expect(stored.map((s) => s.map((e) => e.seq))).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect((await create).map((e) => e.seq)).toEqual([1]);
    expect(committed()).toBe(5);
  });

  it('commits the open group before a read of events or conversations and before any other write, not before a read of settings', async () => {
    const id = await conversation();
    holdOpen = true;
    const append = store.events.append(id, [event()]);
    expect(committed()).toBe(0);
    expect(await store.events.count(id, {})).toBe(1);
    expect(committed()).toBe(1);
    await append;
    const created = store.events.create(conversationRecord(), [event()]);
    expect(await store.conversations.count({})).toBe(2);
    expect(committed()).toBe(2);
    await created;
    // Settings are never written in a group: reading them leaves it open (a burst's starts each read
    // them); writing them commits it.
    const held = store.events.append(id, [event()]);
    await store.settings.get('someone');
    expect(committed()).toBe(2);
    await store.settings.put('someone', '{}');
    expect(committed()).toBe(3);
    await held;
  });

  it('rolls back an append that fails alone; the others of its group are committed', async () => {
    const id = await conversation();
    holdOpen = true;
    const good = store.events.append(id, [event()]);
    const bad = store.events.append('no-such-conversation', [event()]);
    holdOpen = false;
    await expect(bad).rejects.toThrow(/no-such-conversation/);
    expect((await good).map((e) => e.seq)).toEqual([1]);
    expect(committed()).toBe(1);
  });

  it("rolls back a group's first append that fails half-way; the appends after it are committed", async () => {
    const id = await conversation();
    holdOpen = true;
    // Two events of one id: the first is inserted, the second breaks the unique index.
    const twice = event();
    const bad = store.events.append(id, [twice, twice]);
    const good = store.events.append(id, [event()]);
    holdOpen = false;
    await expect(bad).rejects.toThrow(/UNIQUE/);
    expect((await good).map((e) => e.seq)).toEqual([1]);
    expect(committed()).toBe(1);
    expect(await store.events.get(id, twice.id)).toBeNull();
  });

  it('fails every append of a group whose commit fails, and numbers the next appends from what is stored', async () => {
    const id = await conversation();
    await store.events.append(id, [event()]);
    // A constraint checked only at commit: an event whose text says "doom" makes the commit fail.
    observer.exec(`
      CREATE TABLE doom_parent (id INTEGER PRIMARY KEY);
      CREATE TABLE doom_child (parent INTEGER REFERENCES doom_parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER doom AFTER INSERT ON events WHEN instr(NEW.json, 'doom') > 0
        BEGIN INSERT INTO doom_child (parent) VALUES (42); END;
    `);
    const other = await conversation();
    holdOpen = true;
    const plain = store.events.append(id, [event()]);
    const doomed = store.events.append(other, [message('doom')]);
    const created = conversationRecord();
    const create = store.events.create(created, [event()]);
    holdOpen = false;
    for (const p of [plain, doomed, create]) await expect(p).rejects.toThrow(/FOREIGN KEY/);
    expect(committed()).toBe(1);
    expect(await store.conversations.get(created.id)).toBeNull();
    // The failed group's sequence numbers were never stored: the next append takes 2, not 3.
    expect((await store.events.append(id, [event()])).map((e) => e.seq)).toEqual([2]);
    expect(await store.events.count(created.id, {})).toBe(0);
  });

  it('fails the whole group when an append rolls back the transaction itself', async () => {
    const id = await conversation();
    observer.exec(`
      CREATE TRIGGER abort AFTER INSERT ON events WHEN instr(NEW.json, 'abort') > 0
        BEGIN SELECT RAISE(ROLLBACK, 'rolled back by a trigger'); END;
    `);
    const other = await conversation();
    holdOpen = true;
    const earlier = store.events.append(id, [event()]);
    const aborting = store.events.append(other, [message('abort')]);
    const later = store.events.append(other, [event()]);
    holdOpen = false;
    await expect(earlier).rejects.toThrow(/rolled back by a trigger/);
    await expect(aborting).rejects.toThrow(/rolled back by a trigger/);
    // An append after the lost group starts a group of its own.
    expect((await later).map((e) => e.seq)).toEqual([1]);
    expect((await store.events.append(id, [event()])).map((e) => e.seq)).toEqual([1]);
    expect(committed()).toBe(2);
  });
});
