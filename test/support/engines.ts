// The engines of a scaled-out deployment, for the tests that need them: scripts/test.sh starts a
// PostgreSQL and a Redis of the run's own and names them in AGENTD_TEST_DATABASE_URL and
// AGENTD_TEST_REDIS_URL. Outside it a missing URL skips those tests (`describe.skipIf(!url)`);
// under it (AGENTD_TEST_ENGINES=required) a missing URL fails them, so CI never passes by skipping.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

function engineUrl(name: string): string | undefined {
  const url = process.env[name];
  if (url) return url;
  if (process.env.AGENTD_TEST_ENGINES === 'required')
    throw new Error(`${name} is not set, and AGENTD_TEST_ENGINES=required: the engine tests cannot run`);
  return undefined;
}

/** The PostgreSQL server the tests may use (a URL to its maintenance database), if any. */
export function testDatabaseUrl(): string | undefined {
  return engineUrl('AGENTD_TEST_DATABASE_URL');
}

/** The Redis server the tests may use, if any. */
export function testRedisUrl(): string | undefined {
  return engineUrl('AGENTD_TEST_REDIS_URL');
}

/** `url` with its database part replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A new, empty database on the test server, so test files (and tests) run side by side without
 * seeing each other's rows; `drop` removes it, closing what still connects to it.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = testDatabaseUrl();
  if (!server) throw new Error('no test PostgreSQL: AGENTD_TEST_DATABASE_URL is not set');
  const name = `agentd_test_${randomBytes(6).toString('hex')}`;
  await admin(server, `CREATE DATABASE ${name}`);
  return {
    url: withDatabase(server, name),
    drop: () => admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function admin(server: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for the calling test file (or describe block): created before its tests, dropped
 * after them. Returns a getter for its URL, valid once the tests run.
 */
export function useTestDatabase(): () => string {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  return () => {
    if (!db) throw new Error('the test database is made in beforeAll: ask for its URL inside a test');
    return db.url;
  };
}
