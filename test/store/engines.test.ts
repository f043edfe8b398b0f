// The test engines themselves: each test file gets a database of its own, removed after it.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseUrl } from '../support/engines.js';

const server = testDatabaseUrl();

describe.skipIf(!server)('test databases', () => {
  it('are fresh, separate, and gone once dropped', async () => {
    const a = await createTestDatabase();
    const b = await createTestDatabase();
    expect(a.url).not.toBe(b.url);
    const client = new pg.Client({ connectionString: a.url });
    await client.connect();
    await client.query('CREATE TABLE t (x int)');
    const { rows } = await client.query('SELECT current_database() AS name');
    await client.end();
    const name = rows[0].name as string;
    await a.drop();
    await b.drop();
    const check = new pg.Client({ connectionString: server });
    await check.connect();
    const left = await check.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    await check.end();
    expect(left.rowCount).toBe(0);
  });
});
