// `agentd serve --database-url` with the real binary: PostgreSQL instead of SQLite, two processes
// sharing it, and a database that cannot be used is one line at start-up with exit code 1.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliToExit } from '../support/cli.js';
import { testDatabaseUrl, useTestDatabase } from '../support/engines.js';
import { closedPort } from '../support/ports.js';
import { tempDir } from '../support/server.js';

const server = testDatabaseUrl();
const secretKey = { OH_SECRET_KEY: 'replicas-share-this-key' };

describe('agentd serve --database-url', () => {
  it('an unreachable database is one line without the password, exit code 1', async () => {
    const url = `postgres://agentd:hunter2-secret@127.0.0.1:${await closedPort()}/agentd`;
    const res = runCliToExit(
      ['serve', '--port', '0', '--data-dir', tempDir('agentd-db-'), '--database-url', url],
      secretKey,
    );
    expect(res.status).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^agentd: cannot use the database at postgres:\/\/agentd:\*\*\*@127\.0\.0\.1:\d+\/agentd: .*ECONNREFUSED/,
    );
    expect(res.stderr + res.stdout).not.toContain('hunter2-secret');
  });

  it('refuses a URL of another kind, and one without OH_SECRET_KEY (exit code 2)', () => {
    const mysql = runCliToExit(
      ['--data-dir', tempDir('agentd-db-'), '--database-url', 'mysql://x@h/db'],
      secretKey,
    );
    expect(mysql.status).toBe(2);
    expect(mysql.stderr).toMatch(/^agentd: Invalid database URL: mysql:/);
    const env = runCliToExit([], { AGENTD_DATABASE_URL: 'postgres://x:y@127.0.0.1/db' });
    expect(env.status).toBe(2);
    expect(env.stderr).toMatch(/needs OH_SECRET_KEY/);
  });

  describe.skipIf(!server)('on a real PostgreSQL', () => {
    const database = useTestDatabase();

    it('a wrong password is one line, exit code 1, the password not shown', () => {
      const url = new URL(database());
      url.password = 'not-the-password';
      const res = runCliToExit(
        ['--port', '0', '--data-dir', tempDir('agentd-db-'), '--database-url', url.toString()],
        secretKey,
      );
      expect(res.status).toBe(1);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(
        /^agentd: cannot use the database at postgres:\/\/agentd:\*\*\*@.*password authentication failed/,
      );
      expect(res.stderr).not.toContain('not-the-password');
    });

    it('two processes share one database: settings stored through one are read through the other', async () => {
      const url = database();
      const password = new URL(url).password;
      const dirs = [tempDir('agentd-db-'), tempDir('agentd-db-')];
      const env = { ...secretKey, SESSION_API_KEY: 'shared-key', AGENTD_DATABASE_URL: url };
      const [a, b] = await Promise.all(
        dirs.map((dir) => runCli(['--port', '0', '--data-dir', dir], { env })),
      );
      try {
        const headers = { 'X-Session-API-Key': 'shared-key', 'Content-Type': 'application/json' };
        const stored = await fetch(`${a!.url}/api/settings`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ llm_model: 'openai/shared-model', llm_api_key: 'sk-shared-secret' }),
        });
        expect(stored.status).toBe(200);
        const read = await fetch(`${b!.url}/api/settings`, { headers });
        const body = (await read.json()) as Record<string, unknown>;
        expect(body).toMatchObject({ llm_model: 'openai/shared-model', llm_api_key_set: true });
        for (const cli of [a!, b!]) {
          expect(cli.output()).toMatch(/database: postgres:\/\/agentd:\*\*\*@/);
          expect(cli.output()).not.toContain(password);
        }
        // Nothing went to SQLite.
        for (const dir of dirs) expect(existsSync(join(dir, 'agentd.db'))).toBe(false);
      } finally {
        expect(await a!.stop()).toBe(0);
        expect(await b!.stop()).toBe(0);
      }
    });
  });
});
