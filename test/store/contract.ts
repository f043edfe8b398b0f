// The store contract, written against the ports only: every adapter (SQLite now, PostgreSQL later)
// runs this same suite.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ConversationRecord,
  EventIds,
  type RangeRead,
  type Store,
  UnknownConversationError,
  UnknownCursorError,
} from '../../src/store/index.js';
import { DELETE_CHUNK } from '../../src/store/sqlite/store.js';
import { conversationRecord } from '../support/records.js';

export function conversation(overrides: Partial<ConversationRecord> = {}): ConversationRecord {
  return conversationRecord({
    ownerId: 'owner-1',
    state: { note: 'x' },
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    ...overrides,
  });
}

let clock = 0;
export function event(kind = 'PauseEvent', extra: Record<string, unknown> = {}) {
  clock++;
  return {
    id: randomUUID(),
    timestamp: `2026-11-22T10:00:00.${String(clock).padStart(6, '0')}`,
    source: 'user',
    kind,
    ...extra,
  };
}

export function message(text: string, source = 'user') {
  return event('MessageEvent', {
    source,
    llm_message: { role: 'user', content: [{ type: 'text', text }] },
    extended_content: [],
  });
}

export function storeContract(
  name: string,
  open: () => Promise<Store>,
  reopen?: (store: Store) => Promise<Store>,
) {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let conv: ConversationRecord;
    beforeEach(async () => {
      store = await open();
      conv = conversation();
      await store.conversations.create(conv);
    });
    afterEach(() => store.close());

    it('assigns per-conversation sequence numbers, gap-free across batches and conversations', async () => {
      const other = conversation();
      await store.conversations.create(other);
      const a = await store.events.append(conv.id, [event(), event()]);
      await store.events.append(other.id, [event()]);
      const b = await store.events.append(conv.id, [event()]);
      expect([...a, ...b].map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await store.events.lastSeq(conv.id)).toBe(3);
      expect(await store.events.lastSeq(other.id)).toBe(1);
    });

    it('keeps sequence numbers unique under concurrent appends', async () => {
      await Promise.all(Array.from({ length: 50 }, () => store.events.append(conv.id, [event(), event()])));
      const all = await store.events.after(conv.id, 0, 1000);
      expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it('appends a batch atomically: a duplicate id fails the whole batch', async () => {
      const first = event();
      await store.events.append(conv.id, [first]);
      await expect(store.events.append(conv.id, [event(), first], { title: 'never' })).rejects.toThrow();
      expect(await store.events.lastSeq(conv.id)).toBe(1);
      expect((await store.conversations.get(conv.id))?.title).toBeNull();
    });

    it('applies the conversation update in the same transaction as the append', async () => {
      await store.events.append(conv.id, [event()], {
        executionStatus: 'running',
        title: 'T',
        state: { a: 1 },
      });
      const record = await store.conversations.get(conv.id);
      expect(record).toMatchObject({ executionStatus: 'running', title: 'T', state: { a: 1 } });
    });

    it('creates a conversation with its first events in one transaction, or nothing', async () => {
      const fresh = conversation({ title: 'T' });
      const first = [event(), message('go')];
      const stored = await store.events.create(fresh, first);
      expect(stored.map((e) => e.seq)).toEqual([1, 2]);
      expect(await store.conversations.get(fresh.id)).toMatchObject({ title: 'T', state: fresh.state });
      const later = await store.events.append(fresh.id, [event()], { executionStatus: 'running' });
      expect(later[0]!.seq).toBe(3);
      const all = await store.events.after(fresh.id, 0, 10);
      expect(all.map((e) => JSON.parse(e.json).id)).toEqual([...first.map((e) => e.id), later[0]!.id]);
      // A taken id fails, and changes nothing.
      await expect(store.events.create(fresh, [event()])).rejects.toThrow();
      expect(await store.events.lastSeq(fresh.id)).toBe(3);

      // A batch that fails (an id twice) leaves neither the record nor an event behind...
      const failed = conversation();
      const twice = event();
      await expect(store.events.create(failed, [twice, twice])).rejects.toThrow();
      expect(await store.conversations.get(failed.id)).toBeNull();
      // ...and nothing of it lingers: another conversation may get the row it had, and the id's next
      // start numbers from 1 and keeps its events apart.
      const other = conversation();
      await store.conversations.create(other);
      await store.events.append(other.id, [event()]);
      const again = await store.events.create(failed, [event(), event()]);
      expect(again.map((e) => e.seq)).toEqual([1, 2]);
      expect(await store.events.after(other.id, 0, 10)).toHaveLength(1);
      expect(await store.events.after(failed.id, 0, 10)).toHaveLength(2);
    });

    it('stores a title with U+0000 (which PostgreSQL cannot hold) with U+FFFD in its place, at create and update', async () => {
      const record = conversation({ title: 'a\u0000b' });
      await store.conversations.create(record);
      expect((await store.conversations.get(record.id))?.title).toBe('a\uFFFDb');
      await store.conversations.update(record.id, { title: '\u0000c' });
      expect((await store.conversations.get(record.id))?.title).toBe('\uFFFDc');
    });

    it('refuses to append to an unknown conversation', async () => {
      await expect(store.events.append(randomUUID(), [event()])).rejects.toBeInstanceOf(
        UnknownConversationError,
      );
    });

    it('stores the event JSON as given and gets many by id in order, null for missing or foreign', async () => {
      const other = conversation();
      await store.conversations.create(other);
      const [foreign] = await store.events.append(other.id, [event()]);
      const events = [event(), message('hi'), event()];
      await store.events.append(conv.id, events);
      const asked = [events[2]!.id, 'missing', events[0]!.id, foreign!.id, events[2]!.id];
      // The same answer from the list and from the JSON text a client sent (spaced as it pleases).
      for (const ids of [
        new EventIds(asked),
        new EventIds(asked, ` [ ${asked.map((id) => `"${id}"`).join(' , ')} ] `),
      ]) {
        const got = await store.events.getManyJson(conv.id, conv.ownerId, ids);
        expect(JSON.parse(got!.toString('utf8'))).toEqual([events[2], null, events[0], null, events[2]]);
      }
      expect((await store.events.getManyJson(conv.id, conv.ownerId, new EventIds([])))?.toString()).toBe(
        '[]',
      );
      // An id no event can have (PostgreSQL's text holds no NUL) is missing, as any other.
      const odd = new EventIds(['a\u0000b', events[0]!.id]);
      expect(JSON.parse((await store.events.getManyJson(conv.id, conv.ownerId, odd))!.toString())).toEqual([
        null,
        events[0],
      ]);
      expect(await store.events.get(conv.id, 'a\u0000b')).toBeNull();
      // Text with U+0000 is stored and found as any other (PostgreSQL's body column cannot hold it).
      const [nul] = await store.events.append(conv.id, [message('a\u0000b NUL')]);
      expect((await store.events.get(conv.id, nul!.id))?.json).toContain('a\\u0000b');
      expect(
        (await store.events.search(conv.id, { body: 'nul', limit: 10, order: 'asc' })).items,
      ).toHaveLength(1);
      expect(await store.events.count(conv.id, { kind: 'Pause\u0000Event' })).toBe(0);
      expect(
        (await store.events.search(conv.id, { body: 'h\u0000', limit: 10, order: 'asc' })).items,
      ).toEqual([]);
      // Null, for no ids as for some, where the conversation is missing or another owner's.
      for (const ids of [[events[0]!.id], []]) {
        expect(
          await store.events.getManyJson('no-such-conversation', conv.ownerId, new EventIds(ids)),
        ).toBeNull();
        expect(await store.events.getManyJson(conv.id, 'someone-else', new EventIds(ids))).toBeNull();
      }
      expect((await store.events.get(conv.id, events[1]!.id))?.kind).toBe('MessageEvent');
      expect(await store.events.get(conv.id, 'missing')).toBeNull();
    });

    it('answers a batch of 300 ids in their order, across pages of the log, with text of any script', async () => {
      const events = Array.from({ length: 250 }, (_, i) => message(`event ${i} … ünïcødé 日本 🙂`));
      await store.events.append(conv.id, events);
      // A fixed shuffle (no randomness in tests), with ids asked twice and ids that are not there.
      const asked = Array.from({ length: 300 }, (_, i) =>
        i % 37 === 5 ? `missing-${i}` : events[(i * 149) % events.length]!.id,
      );
      const body = (await store.events.getManyJson(conv.id, conv.ownerId, new EventIds(asked)))!.toString(
        'utf8',
      );
      const byId = new Map<string, unknown>(events.map((e) => [e.id, e]));
      expect(JSON.parse(body)).toEqual(asked.map((id) => byId.get(id) ?? null));
    });

    it('pages by cursor: limit 2 over 5 events gives 2, 2, 1 then null, both orders', async () => {
      const events = Array.from({ length: 5 }, () => event());
      await store.events.append(conv.id, events);
      for (const order of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        const sizes: number[] = [];
        let pageId: string | undefined;
        do {
          const page = await store.events.search(conv.id, { limit: 2, order, pageId });
          sizes.push(page.items.length);
          seen.push(...page.items.map((e) => e.id));
          pageId = page.nextPageId ?? undefined;
        } while (pageId);
        expect(sizes).toEqual([2, 2, 1]);
        const ids = events.map((e) => e.id);
        expect(seen).toEqual(order === 'asc' ? ids : ids.reverse());
      }
    });

    it('rejects an unknown cursor instead of restarting', async () => {
      await store.events.append(conv.id, [event()]);
      await expect(
        store.events.search(conv.id, { limit: 10, order: 'asc', pageId: 'nope' }),
      ).rejects.toBeInstanceOf(UnknownCursorError);
    });

    it('says whether any event matches a filter', async () => {
      await store.events.append(conv.id, [event(), message('Hello there'), event()]);
      expect(await store.events.exists(conv.id, { kind: 'MessageEvent' })).toBe(true);
      expect(await store.events.exists(conv.id, { kind: 'MessageEvent', body: 'there' })).toBe(true);
      expect(await store.events.exists(conv.id, { kind: 'MessageEvent', body: 'nowhere' })).toBe(false);
      expect(await store.events.exists(conv.id, { kind: 'SystemPromptEvent' })).toBe(false);
      expect(await store.events.exists('no-such-conversation', {})).toBe(false);
    });

    it('filters by kind, source, body and timestamps, in search and count', async () => {
      const hello = message('Hello World');
      const agent = message('agent speaks', 'agent');
      const pause = event('PauseEvent');
      await store.events.append(conv.id, [hello, agent, pause]);
      const ids = async (filter: object) =>
        (await store.events.search(conv.id, { limit: 10, order: 'asc', ...filter })).items.map((e) => e.id);
      expect(await ids({ kind: 'MessageEvent' })).toEqual([hello.id, agent.id]);
      expect(await ids({ source: 'agent' })).toEqual([agent.id]);
      expect(await ids({ body: 'hello world' })).toEqual([hello.id]);
      expect(await ids({ body: 'WORLD' })).toEqual([hello.id]);
      expect(await ids({ timestampGte: agent.timestamp })).toEqual([agent.id, pause.id]);
      expect(await ids({ timestampLt: agent.timestamp })).toEqual([hello.id]);
      expect(await store.events.count(conv.id, { kind: 'MessageEvent' })).toBe(2);
      expect(await store.events.count(conv.id, {})).toBe(3);
      expect(await store.events.count(conv.id, { body: 'nothing like it' })).toBe(0);
    });

    it('replays events after a sequence number', async () => {
      const events = Array.from({ length: 5 }, () => event());
      await store.events.append(conv.id, events);
      const page = await store.events.after(conv.id, 2, 2);
      expect(page.map((e) => e.seq)).toEqual([3, 4]);
      expect(page[0]!.json).toBe(JSON.stringify(events[2]));
      expect(page[1]!.id).toBe(events[3]!.id);
      expect(await store.events.after(conv.id, 5, 10)).toEqual([]);
    });

    it('reads between two sequence numbers, either way, by kind and source', async () => {
      const events = [message('a'), event(), message('b', 'agent'), event(), message('c', 'agent'), event()];
      await store.events.append(conv.id, events);
      const seqs = async (read: Partial<RangeRead>) =>
        (await store.events.range(conv.id, { order: 'desc', limit: 10, ...read })).map((e) => e.seq);
      expect(await seqs({})).toEqual([6, 5, 4, 3, 2, 1]);
      expect(await seqs({ order: 'asc', afterSeq: 4 })).toEqual([5, 6]);
      expect(await seqs({ afterSeq: 2, beforeSeq: 5 })).toEqual([4, 3]);
      expect(await seqs({ order: 'asc', afterSeq: 2, beforeSeq: 5, limit: 1 })).toEqual([3]);
      expect(await seqs({ limit: 2 })).toEqual([6, 5]);
      expect(await seqs({ kind: 'MessageEvent' })).toEqual([5, 3, 1]);
      expect(await seqs({ beforeSeq: 5, kind: 'MessageEvent', source: 'agent' })).toEqual([3]);
      expect(await seqs({ afterSeq: 5, kind: 'MessageEvent' })).toEqual([]);
      const [last] = await store.events.range(conv.id, { beforeSeq: 6, order: 'desc', limit: 1 });
      expect(last).toEqual({ seq: 5, id: events[4]!.id, json: JSON.stringify(events[4]) });
      expect(await store.events.range(randomUUID(), { order: 'asc', limit: 10 })).toEqual([]);
    });

    it('reads, updates, lists, counts and deletes conversations (with their events)', async () => {
      const later = conversation({
        createdAt: '2026-11-22T11:00:00.000Z',
        updatedAt: '2026-11-22T09:00:00.000Z',
        executionStatus: 'finished',
      });
      const foreign = conversation({ ownerId: 'owner-2' });
      await store.conversations.create(later);
      await store.conversations.create(foreign);
      expect(
        (await store.conversations.getMany([later.id, 'nope', conv.id])).map((c) => c?.id ?? null),
      ).toEqual([later.id, null, conv.id]);

      const page = await store.conversations.search({
        ownerId: 'owner-1',
        limit: 1,
        sort: 'CREATED_AT_DESC',
      });
      expect(page.items.map((c) => c.id)).toEqual([later.id]);
      const next = await store.conversations.search({
        ownerId: 'owner-1',
        limit: 1,
        sort: 'CREATED_AT_DESC',
        pageId: page.nextPageId!,
      });
      expect(next.items.map((c) => c.id)).toEqual([conv.id]);
      expect(next.nextPageId).toBeNull();
      const byUpdate = await store.conversations.search({
        ownerId: 'owner-1',
        limit: 10,
        sort: 'UPDATED_AT',
      });
      expect(byUpdate.items.map((c) => c.id)).toEqual([later.id, conv.id]);
      await expect(
        store.conversations.search({ ownerId: 'owner-1', limit: 1, sort: 'CREATED_AT', pageId: foreign.id }),
      ).rejects.toBeInstanceOf(UnknownCursorError);
      expect(await store.conversations.count({ ownerId: 'owner-1' })).toBe(2);
      expect(await store.conversations.owner(foreign.id)).toBe('owner-2');
      expect(await store.conversations.owner('nope')).toBeNull();
      expect(await store.conversations.count({ executionStatus: 'finished' })).toBe(1);

      await store.conversations.update(conv.id, { title: 'renamed', tags: { a: 'b' } });
      expect(await store.conversations.get(conv.id)).toMatchObject({ title: 'renamed', tags: { a: 'b' } });

      await store.events.append(conv.id, [event()]);
      expect(await store.conversations.delete(conv.id)).toBe(true);
      expect(await store.conversations.delete(conv.id)).toBe(false);
      expect(await store.conversations.get(conv.id)).toBeNull();
      expect(await store.events.lastSeq(conv.id)).toBe(0);
      expect(await store.events.after(conv.id, 0, 10)).toEqual([]);
    });

    it('deletes a conversation of many events (more than one SQLite chunk) with every event', async () => {
      const many = Array.from({ length: 2 * DELETE_CHUNK + 7 }, () => event());
      for (let i = 0; i < many.length; i += 1000) await store.events.append(conv.id, many.slice(i, i + 1000));
      const other = conversation();
      await store.conversations.create(other);
      await store.events.append(other.id, [event()]);

      expect(await store.conversations.delete(conv.id)).toBe(true);
      expect(await store.conversations.get(conv.id)).toBeNull();
      expect(await store.conversations.owner(conv.id)).toBeNull();
      expect(await store.conversations.count({ ownerId: 'owner-1' })).toBe(1);
      expect(await store.events.lastSeq(conv.id)).toBe(0);
      expect(await store.events.after(conv.id, 0, 10)).toEqual([]);
      const ends = [many[0]!.id, many[many.length - 1]!.id];
      expect(await store.events.getManyOfOwner('owner-1', ends)).toEqual([null, null]);
      expect(await store.events.countOfOwner('owner-1', {})).toBe(1);
      // The rows are gone, not only hidden: the conversation's id and its events' ids (unique
      // store-wide) can be stored again.
      await store.conversations.create(conv);
      await store.events.append(conv.id, many.slice(0, 3));
      expect((await store.events.after(conv.id, 0, 10)).map((e) => e.id)).toEqual(
        many.slice(0, 3).map((e) => e.id),
      );
      expect((await store.events.after(other.id, 0, 10)).length).toBe(1);
    });

    it('stores settings documents per user', async () => {
      expect(await store.settings.get('u1')).toBeNull();
      await store.settings.put('u1', '{"a":1}');
      await store.settings.put('u1', '{"a":2}');
      await store.settings.put('u2', '{"b":1}');
      expect(await store.settings.get('u1')).toBe('{"a":2}');
      expect(await store.settings.get('u2')).toBe('{"b":1}');
    });

    it('filters conversations by sandbox, title and dates', async () => {
      const app = conversation({
        title: 'Fix 100% of the_bugs',
        sandboxId: 'sbx-1',
        createdAt: '2026-11-22T11:00:00.000Z',
        updatedAt: '2026-11-22T12:00:00.000Z',
      });
      await store.conversations.create(app);
      expect((await store.conversations.get(app.id))?.sandboxId).toBe('sbx-1');
      expect((await store.conversations.get(conv.id))?.sandboxId).toBeNull();
      const search = (filter: Record<string, unknown>) =>
        store.conversations
          .search({ ownerId: 'owner-1', limit: 10, sort: 'CREATED_AT_DESC', ...filter })
          .then((p) => p.items.map((r) => r.id));
      expect(await search({ sandboxed: true })).toEqual([app.id]);
      expect(await search({ sandboxed: false })).toEqual([conv.id]);
      expect(await search({ titleContains: '100%' })).toEqual([app.id]);
      expect(await search({ titleContains: 'the_b' })).toEqual([app.id]);
      expect(await search({ titleContains: 'FIX' })).toEqual([app.id]);
      expect(await search({ titleContains: '1000' })).toEqual([]);
      expect(await search({ titleContains: '_' })).toEqual([app.id]);
      expect(await search({ createdAtGte: '2026-11-22T11:00:00.000Z' })).toEqual([app.id]);
      expect(await search({ createdAtLt: '2026-11-22T11:00:00.000Z' })).toEqual([conv.id]);
      expect(await search({ updatedAtGte: '2026-11-22T12:00:00.000Z', sandboxed: true })).toEqual([app.id]);
      expect(await search({ updatedAtLt: '2026-11-22T12:00:00.000Z' })).toEqual([conv.id]);
      expect(await store.conversations.count({ ownerId: 'owner-1', sandboxed: true })).toBe(1);
      expect(await store.conversations.count({ titleContains: 'bugs', createdAtGte: '2027' })).toBe(0);
      const child = conversation({ sandboxId: 'sbx-1', parentId: app.id });
      await store.conversations.create(child);
      expect((await store.conversations.get(child.id))?.parentId).toBe(app.id);
      expect(await search({ sandboxId: 'sbx-1', hasParent: false })).toEqual([app.id]);
      expect(await store.conversations.count({ sandboxId: 'sbx-1' })).toBe(2);
    });

    it("finds each conversation's sub-conversations in one read, oldest first", async () => {
      const parent = conversation();
      const other = conversation();
      const later = conversation({ parentId: parent.id, createdAt: '2026-11-22T12:00:00.000Z' });
      const earlier = conversation({ parentId: parent.id, createdAt: '2026-11-22T11:00:00.000Z' });
      const ofOther = conversation({ parentId: other.id });
      for (const c of [parent, other, later, earlier, ofOther]) await store.conversations.create(c);
      const children = await store.conversations.children([parent.id, other.id, later.id]);
      expect(children.get(parent.id)).toEqual([earlier.id, later.id]);
      expect(children.get(other.id)).toEqual([ofOther.id]);
      expect(children.size).toBe(2);
      expect(await store.conversations.children([])).toEqual(new Map());
      // The link is a pointer: a deleted parent leaves its children, still naming it.
      await store.conversations.delete(parent.id);
      expect((await store.conversations.get(later.id))?.parentId).toBe(parent.id);
      expect((await store.conversations.children([parent.id])).get(parent.id)).toEqual([
        earlier.id,
        later.id,
      ]);
      await store.conversations.delete(earlier.id);
      expect((await store.conversations.children([parent.id])).get(parent.id)).toEqual([later.id]);
    });

    it("reads events across an owner's conversations, in timestamp order, without skipping", async () => {
      const other = conversation();
      const foreign = conversation({ ownerId: 'owner-2' });
      await store.conversations.create(other);
      await store.conversations.create(foreign);
      // Created (so timestamped) interleaved: a0, b0, a1, b1.
      const a0 = event();
      const b0 = event('MessageEvent');
      const a = [a0, event()];
      const b = [b0, event()];
      await store.events.append(conv.id, [a[0]!]);
      await store.events.append(other.id, [b[0]!]);
      await store.events.append(conv.id, [a[1]!]);
      await store.events.append(other.id, [b[1]!]);
      const hidden = event();
      await store.events.append(foreign.id, [hidden]);
      const order = [a[0]!, b[0]!, a[1]!, b[1]!].map((e) => e.id);

      const found = await store.events.getManyOfOwner('owner-1', [b[1]!.id, hidden.id, 'nope', a[0]!.id]);
      expect(found.map((e) => e?.id ?? null)).toEqual([b[1]!.id, null, null, a[0]!.id]);
      expect(JSON.parse(found[0]!.json)).toEqual(b[1]);

      const ids: string[] = [];
      let pageId: string | undefined;
      do {
        const page = await store.events.searchOfOwner('owner-1', { limit: 3, order: 'asc', pageId });
        ids.push(...page.items.map((e) => e.id));
        pageId = page.nextPageId ?? undefined;
      } while (pageId);
      expect(ids).toEqual(order);
      const desc = await store.events.searchOfOwner('owner-1', { limit: 2, order: 'desc' });
      expect(desc.items.map((e) => e.id)).toEqual([order[3], order[2]]);
      const rest = await store.events.searchOfOwner('owner-1', {
        limit: 2,
        order: 'desc',
        pageId: desc.nextPageId!,
      });
      expect(rest.items.map((e) => e.id)).toEqual([order[1], order[0]]);
      expect(rest.nextPageId).toBeNull();
      await expect(
        store.events.searchOfOwner('owner-1', { limit: 2, order: 'asc', pageId: hidden.id }),
      ).rejects.toBeInstanceOf(UnknownCursorError);
      expect(await store.events.countOfOwner('owner-1', {})).toBe(4);
      expect(await store.events.countOfOwner('owner-1', { kind: 'MessageEvent' })).toBe(1);
      expect(await store.events.countOfOwner('owner-2', {})).toBe(1);
    });

    it('keeps documents: upsert, batch get, status and ref filters, cursor pages', async () => {
      const docs = store.documents<{
        id: string;
        ownerId: string;
        status: string;
        ref?: string | null;
        createdAt: string;
        updatedAt: string;
        note?: string;
      }>('start_tasks');
      const make = (i: number, ownerId = 'owner-1') => ({
        id: randomUUID(),
        ownerId,
        status: i % 2 ? 'READY' : 'WORKING',
        ref: i === 1 ? 'conv-1' : null,
        createdAt: `2026-11-22T10:00:0${i}.000Z`,
        updatedAt: `2026-11-22T10:00:0${i}.000Z`,
      });
      const all = [make(0), make(1), make(2), make(3), make(4, 'owner-2')];
      for (const d of all) await docs.put(d);
      await docs.put({ ...all[0]!, status: 'READY', note: 'changed', updatedAt: '2026-11-22T11:00:00.000Z' });
      expect(await docs.get(all[0]!.id)).toMatchObject({ status: 'READY', note: 'changed' });
      expect(await docs.getMany([all[2]!.id, 'nope', all[1]!.id])).toEqual([all[2], null, all[1]]);
      expect(await docs.count({ ownerId: 'owner-1', status: ['READY'] })).toBe(3);
      expect(await docs.count({ ref: 'conv-1' })).toBe(1);
      expect(await docs.count({ createdAtGte: '2026-11-22T10:00:02.000Z' })).toBe(3);
      const ids: string[] = [];
      let pageId: string | undefined;
      do {
        const page = await docs.search({ ownerId: 'owner-1', sort: 'CREATED_AT_DESC', limit: 2, pageId });
        ids.push(...page.items.map((d) => d.id));
        pageId = page.nextPageId ?? undefined;
      } while (pageId);
      expect(ids).toEqual([all[3]!.id, all[2]!.id, all[1]!.id, all[0]!.id]);
      const updated = await docs.search({ sort: 'UPDATED_AT_DESC', limit: 1 });
      expect(updated.items[0]?.id).toBe(all[0]!.id);
      await expect(
        docs.search({ ownerId: 'owner-1', sort: 'CREATED_AT', limit: 1, pageId: all[4]!.id }),
      ).rejects.toBeInstanceOf(UnknownCursorError);
      expect(await docs.delete(all[0]!.id)).toBe(true);
      expect(await docs.delete(all[0]!.id)).toBe(false);
      expect(await store.documents('sandboxes').count({})).toBe(0);
    });

    if (reopen) {
      it('keeps everything across close and reopen', async () => {
        const e = event();
        await store.events.append(conv.id, [e]);
        await store.settings.put('u1', 'doc');
        store = await reopen(store);
        expect((await store.events.get(conv.id, e.id))?.json).toBe(JSON.stringify(e));
        expect(await store.settings.get('u1')).toBe('doc');
        expect((await store.events.append(conv.id, [event()]))[0]?.seq).toBe(2);
      });
    }
  });
}
