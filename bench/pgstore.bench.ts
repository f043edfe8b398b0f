// Event append rate on PostgreSQL (batches of 1 and of 100, and batches of 1 from 16 conversations
// at once), in a database of its own on the server AGENTD_BENCH_DATABASE_URL names (else the test
// server, AGENTD_TEST_DATABASE_URL); skipped without one. Compare with `store` (SQLite).
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openPostgresStore, type Store } from '../src/store/index.js';
import { withDatabase } from '../test/support/engines.js';
import { conversationRecord } from '../test/support/records.js';
import { record } from './lib.js';
import { syntheticEvent } from './synthetic.js';

async function admin(server: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    const { rows } = await client.query(sql);
    return String(rows[0] ? Object.values(rows[0])[0] : '');
  } finally {
    await client.end();
  }
}

async function appendRate(store: Store, batch: number, total: number, writers: number): Promise<number> {
  const conversations = Array.from({ length: writers }, () => randomUUID());
  for (const id of conversations) await store.conversations.create(conversationRecord({ id }));
  const perWriter = total / writers / batch;
  const t = performance.now();
  await Promise.all(
    conversations.map(async (id, w) => {
      for (let b = 0; b < perWriter; b++) {
        const events = Array.from({ length: batch }, (_, i) =>
          syntheticEvent((w * perWriter + b) * batch + i),
        );
        await store.events.append(id, events);
      }
    }),
  );
  return total / ((performance.now() - t) / 1000);
}

export async function benchPgAppend(): Promise<void> {
  const server = process.env.AGENTD_BENCH_DATABASE_URL || process.env.AGENTD_TEST_DATABASE_URL;
  if (!server) {
    record({ name: 'PostgreSQL event append', value: 'skipped (no AGENTD_BENCH_DATABASE_URL)' });
    return;
  }
  const name = `agentd_bench_${randomBytes(6).toString('hex')}`;
  await admin(server, `CREATE DATABASE ${name}`);
  const fsync = await admin(server, 'SHOW fsync');
  const store = await openPostgresStore({ url: withDatabase(server, name), poolSize: 16 });
  try {
    const runs = [
      { batch: 1, total: 10_000, writers: 1, goal: 2_000 },
      { batch: 100, total: 100_000, writers: 1, goal: 20_000 },
      { batch: 1, total: 32_000, writers: 16, goal: 5_000 },
    ];
    for (const run of runs) {
      const rate = await appendRate(store, run.batch, run.total, run.writers);
      const who = run.writers > 1 ? `, ${run.writers} conversations at once` : '';
      record({
        name: `PostgreSQL event append, batches of ${run.batch}${who} (fsync ${fsync})`,
        value: `${Math.round(rate).toLocaleString('en')} events/s`,
        goal: `≥ ${run.goal.toLocaleString('en')} events/s`,
        met: rate >= run.goal,
      });
    }
  } finally {
    await store.close();
    await admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
