// Fork and delete of conversations longer than a page of the store: the fork copies exactly what it
// copied when it read the whole log at once (same events, same order, every reference to a copied
// event rewritten, none other), and neither a fork nor a delete keeps other requests waiting until
// it is done.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorableEvent } from '../../src/store/index.js';
import { rawRequest } from '../support/http.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
/** /health's own kept-alive connection, made before any work it is raced with. */
const checker = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  server = await startServer();
  await rawRequest(server.url, { method: 'GET', path: '/health', agent: checker });
});
afterAll(async () => {
  checker.destroy();
  await server.close({ remove: true });
});

const agent = {
  kind: 'Agent',
  llm: { model: 'openai/never-called', api_key: 'sk-unused', base_url: 'http://127.0.0.1:9/v1' },
};

async function conversation(): Promise<string> {
  const res = await api(server, '/api/conversations', {
    method: 'POST',
    body: JSON.stringify({ agent, workspace: { working_dir: tempDir() } }),
  });
  return ((await res.json()) as { id: string }).id;
}

let clock = 0;
const timestamp = () => `2026-11-23T10:00:00.${String(clock++).padStart(6, '0')}`;
/** The event ids (UUIDs) a text holds. */
const uuids = (text: string) =>
  text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];

/** Appends `count` events behind the API, 1,000 a batch; `make(i, ids)` makes the i-th, its id ids[i]. */
async function appendEvents(
  id: string,
  count: number,
  make: (i: number, ids: string[]) => Record<string, unknown> & { kind: string } = () => ({
    kind: 'PauseEvent',
  }),
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let start = 0; start < count; start += 1000) {
    const batch: StorableEvent[] = [];
    for (let i = start; i < Math.min(count, start + 1000); i++)
      batch.push({ id: ids[i]!, timestamp: timestamp(), source: 'user', ...make(i, ids) });
    await server.store.events.append(id, batch);
  }
  return ids;
}

/** The stored text of every event of a conversation, in order. */
async function storedTexts(id: string): Promise<string[]> {
  const out: string[] = [];
  for (let after = 0; ; ) {
    const page = await server.store.events.after(id, after, 1000);
    if (page.length === 0) return out;
    out.push(...page.map((e) => e.json));
    after = page[page.length - 1]!.seq;
  }
}

/** `texts` with every string and member name that is a key of `renamed` replaced by its value. */
function renamedTexts(texts: string[], renamed: Map<string, string>): string[] {
  const rename = (value: unknown): unknown => {
    if (typeof value === 'string') return renamed.get(value) ?? value;
    if (Array.isArray(value)) return value.map(rename);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [renamed.get(k) ?? k, rename(v)]));
    return value;
  };
  return texts.map((t) => JSON.stringify(rename(JSON.parse(t))));
}

/**
 * The order in which `work` and a /health request are answered, /health sent as soon as `started()`
 * says the work is under way (checked on every turn of the loop: this process runs the server too).
 */
async function raceHealth(work: Promise<Response>, started: () => Promise<boolean>): Promise<string[]> {
  const order: string[] = [];
  const answered = work.then((res) => {
    order.push(`work ${res.status}`);
  });
  while (order.length === 0 && !(await started())) await new Promise((r) => setImmediate(r));
  await rawRequest(server.url, { method: 'GET', path: '/health', agent: checker });
  order.push('health');
  await answered;
  return order;
}

describe('a conversation longer than a page', () => {
  /** 3,000 events; from seq 1,801 on a branch continues from seq 700 (seqs 701-1,800 are another branch). */
  let source: string;
  let ids: string[];
  let texts: string[];

  beforeAll(async () => {
    source = await conversation();
    const before = (await server.store.events.lastSeq(source)) as number;
    // References across pages, backward and forward, as values and as member names, and to events
    // that a fork from seq 2,500 leaves out (the other branch, the end).
    ids = await appendEvents(source, 3000, (i, all) => {
      if (i % 10 === 1) return { kind: 'ObservationEvent', action_id: all[(i + 1999) % 3000] };
      if (i % 10 === 2) return { kind: 'Condensation', forgotten_event_ids: [all[(i + 700) % 3000], all[5]] };
      if (i % 10 === 3)
        return { kind: 'ConversationStateUpdateEvent', key: 'x', value: { [all[(i + 1200) % 3000]!]: i } };
      return { kind: 'PauseEvent' };
    });
    expect(before).toBeLessThan(5);
    const record = (await server.store.conversations.get(source))!;
    const branch_points = [{ seq: before + 1801, parent_event_id: ids[699] }];
    await server.store.conversations.update(source, {
      state: { ...record.state, branch_points, leaf_event_id: ids[2999] },
    });
    texts = await storedTexts(source);
  });

  it('forks all of it: every event, in order, references to copied events rewritten', async () => {
    const forkId = randomUUID();
    const res = await api(server, `/api/conversations/${source}/fork`, {
      method: 'POST',
      body: JSON.stringify({ id: forkId }),
    });
    expect(res.status).toBe(201);
    const forked = (await res.json()) as { leaf_event_id: string };
    const copy = await storedTexts(forkId);
    expect(copy).toHaveLength(texts.length);
    const renamed = new Map(
      texts.map((t, i) => [JSON.parse(t).id as string, JSON.parse(copy[i]!).id as string]),
    );
    expect(copy).toEqual(renamedTexts(texts, renamed));
    const sourceIds = new Set(texts.map((t) => JSON.parse(t).id as string));
    expect(copy.flatMap(uuids).filter((u) => sourceIds.has(u))).toEqual([]);
    expect(forked.leaf_event_id).toBe(renamed.get(ids[2999]!));
    const state = (await server.store.conversations.get(forkId))!.state;
    expect(state.branch_points).toEqual([
      { seq: texts.length - 3000 + 1801, parent_event_id: renamed.get(ids[699]!) },
    ]);
  });

  it('forks from an event in the middle: the path to it, across pages, and only its events renamed', async () => {
    const forkId = randomUUID();
    const res = await api(server, `/api/conversations/${source}/fork`, {
      method: 'POST',
      body: JSON.stringify({ id: forkId, from_event_id: ids[2499] }),
    });
    expect(res.status).toBe(201);
    const head = texts.length - 3000; // the conversation's own first events
    const path = [...texts.slice(0, head + 700), ...texts.slice(head + 1800, head + 2500)];
    const copy = await storedTexts(forkId);
    expect(copy).toHaveLength(path.length);
    const renamed = new Map(
      path.map((t, i) => [JSON.parse(t).id as string, JSON.parse(copy[i]!).id as string]),
    );
    expect(copy).toEqual(renamedTexts(path, renamed));
    // References to events off the path (the other branch, the end) are kept as they were.
    const offPath = new Set([...ids.slice(700, 1800), ...ids.slice(2500)]);
    const kept = copy.flatMap(uuids).filter((u) => ids.includes(u));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((u) => offPath.has(u))).toBe(true);
    const state = (await server.store.conversations.get(forkId))!.state;
    expect(state.branch_points).toBeUndefined();
  });

  it('answers /health while a fork copies', async () => {
    const forkId = randomUUID();
    const fork = api(server, `/api/conversations/${source}/fork`, {
      method: 'POST',
      body: JSON.stringify({ id: forkId }),
    });
    // The fork's record is made once the ids are read, before its events are copied.
    const order = await raceHealth(
      fork,
      async () => (await server.store.conversations.owner(forkId)) !== null,
    );
    expect(order).toEqual(['health', 'work 201']);
    expect(await server.store.events.lastSeq(forkId)).toBe(texts.length);
  });
});

describe('delete of a long conversation', () => {
  it('answers /health while the events go, and leaves none of them', async () => {
    const id = await conversation();
    const ids = await appendEvents(id, 20_000);
    const { ownerId } = (await server.store.conversations.get(id))!;
    const order = await raceHealth(
      api(server, `/api/conversations/${id}`, { method: 'DELETE' }),
      async () => (await server.store.conversations.get(id)) === null,
    );
    expect(order).toEqual(['health', 'work 200']);
    expect(await server.store.events.lastSeq(id)).toBe(0);
    expect(await server.store.events.getManyOfOwner(ownerId, [ids[0]!, ids[19_999]!])).toEqual([null, null]);
    expect((await api(server, `/api/conversations/${id}`)).status).toBe(404);
  });
});
