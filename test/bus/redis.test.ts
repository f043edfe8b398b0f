// The Redis bus against a real Redis (AGENTD_TEST_REDIS_URL, started by scripts/test.sh): fan-out
// between two buses as between two replicas, and readers that stay exact when Redis loses messages.
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BusMessage, RedisBus, RedisBusError } from '../../src/bus/index.js';
import { EventLog } from '../../src/conversation/event-log.js';
import { subscribe } from '../../src/conversation/subscription.js';
import { openSqliteStore, type Store } from '../../src/store/index.js';
import { conversation, event } from '../store/contract.js';
import { testRedisUrl } from '../support/engines.js';
import { tempDir } from '../support/server.js';

const url = testRedisUrl();

describe.skipIf(!url)('Redis bus', () => {
  let a: RedisBus;
  let b: RedisBus;
  let store: Store;
  let admin: Redis;

  beforeEach(async () => {
    a = await RedisBus.connect(url!);
    b = await RedisBus.connect(url!);
    admin = new Redis(url!);
    store = openSqliteStore({ path: join(tempDir(), 'agentd.db') });
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close(), store.close()]);
    admin.disconnect();
  });

  /** A reader on `bus` from after_seq `after`, collecting what it gets. */
  function reader(bus: RedisBus, conversationId: string, after: number) {
    const got: BusMessage[] = [];
    const sub = subscribe({
      bus,
      store,
      conversationId,
      resend: { mode: 'after_seq', afterSeq: after },
      first: () => ({ seq: null, json: '{"first":true}' }),
      deliver: (m) => {
        got.push(m);
        return true;
      },
      onOverflow: () => {
        throw new Error('overflow');
      },
    });
    return { got, sub, seqs: () => got.filter((m) => m.seq !== null).map((m) => m.seq) };
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    if (!check()) throw new Error(`timed out waiting for ${what}`);
  }

  it('delivers a message published on one bus to subscribers of both, once each, in order', async () => {
    const onA: BusMessage[] = [];
    const onB: BusMessage[] = [];
    let readyB = false;
    a.subscribe('c1', (m) => onA.push(m));
    b.subscribe(
      'c1',
      (m) => onB.push(m),
      () => {
        readyB = true;
      },
    );
    await until(() => readyB, 'the subscription');
    for (let seq = 1; seq <= 20; seq++) a.publish('c1', { seq, json: `{"n":${seq}}` });
    a.publish('c1', { seq: null, json: '{"transient":true}' });
    await until(() => onB.length === 21, 'every message on B');
    expect(onA).toEqual(onB);
    expect(onB.map((m) => m.seq)).toEqual([...Array.from({ length: 20 }, (_, i) => i + 1), null]);
    expect(onB[0]!.json).toBe('{"n":1}');
    expect(b.subscriberCount('c1')).toBe(1);
  });

  it('a reader on another replica repairs a lost message from the store: no gap, no duplicate', async () => {
    const conv = conversation();
    await store.conversations.create(conv);
    const log = new EventLog(store, a);
    await log.append(conv.id, [event(), event()]);
    const r = reader(b, conv.id, 1);
    await r.sub.live;
    await until(() => r.seqs().length === 1, 'the replay');
    // Stored but never published: the bus lost seq 3 and 4; seq 5 arrives and shows the gap.
    await store.events.append(conv.id, [event(), event()]);
    await log.append(conv.id, [event()]);
    await log.append(conv.id, [event()]);
    await until(() => r.seqs().length === 5, 'the repair');
    expect(r.seqs()).toEqual([2, 3, 4, 5, 6]);
    const stored = await store.events.after(conv.id, 1, 100);
    expect(r.got.filter((m) => m.seq !== null).map((m) => m.json)).toEqual(stored.map((s) => s.json));
    r.sub.close();
  });

  it('after Redis drops the connection, a reader reads what it missed even when nothing follows', async () => {
    const conv = conversation();
    await store.conversations.create(conv);
    const log = new EventLog(store, a);
    const r = reader(b, conv.id, 0);
    await r.sub.live;
    await log.append(conv.id, [event()]);
    await until(() => r.seqs().length === 1, 'the first event');
    // Kill every subscriber connection: B's reconnects; what was published meanwhile is gone.
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await store.events.append(conv.id, [event(), event()]);
    await until(() => r.seqs().length === 3, 'the events missed during the reconnect');
    await log.append(conv.id, [event()]);
    await until(() => r.seqs().length === 4, 'the next live event');
    expect(r.seqs()).toEqual([1, 2, 3, 4]);
    r.sub.close();
  });

  it('an unreachable Redis is one clear error', async () => {
    const error = await RedisBus.connect('redis://127.0.0.1:1', { connectTimeoutMs: 1000 }).catch((e) => e);
    expect(error).toBeInstanceOf(RedisBusError);
    expect((error as Error).message).toMatch(
      /^cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/?: .*ECONNREFUSED/,
    );
  });
});
