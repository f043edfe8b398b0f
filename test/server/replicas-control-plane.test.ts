// Two control planes (replicas) on one PostgreSQL: the sandbox limit holds across them, a sandbox
// started through one is read, paused, resumed and deleted through the other, and stopping a
// replica leaves the other's sandboxes running. (Both run on this machine: the pids and loopback
// URLs in the records are valid for both; see README "Scaling out".)
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, useTestDatabase } from '../support/engines.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { getJson, type Json, postJson } from '../support/v1.js';

describe.skipIf(!testDatabaseUrl())('control plane on two replicas sharing PostgreSQL', () => {
  const database = useTestDatabase();
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const replica = () =>
      startServer({
        databaseUrl: database(),
        env: { OH_SECRET_KEY: 'shared by the replicas' },
        controlPlane: { maxSandboxes: 2, warmSpare: false, sandboxProvider: 'process' },
      });
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    await b?.close({ remove: true });
    await a?.close({ remove: true });
  });

  async function settled(server: TestServer, id: string): Promise<Json> {
    for (;;) {
      const [current] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${id}`);
      if (current!.status !== 'STARTING') return current!;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const start = async (server: TestServer) =>
    settled(server, (await postJson(server, '/api/v1/sandboxes')).id as string);
  const status = async (server: TestServer, id: string) =>
    (await getJson<Json[]>(server, `/api/v1/sandboxes?id=${id}`))[0]?.status;

  it('holds the sandbox limit across replicas and lets either manage the other one’s sandboxes', async () => {
    const first = await start(a);
    const second = await start(b);
    expect([first.status, second.status]).toEqual(['RUNNING', 'RUNNING']);
    for (const server of [a, b]) {
      const refused = await api(server, '/api/v1/sandboxes', { method: 'POST' });
      expect(refused.status).toBe(429);
    }
    // B reads A's sandbox with its agent server's URL and key, and pauses, resumes, deletes it.
    const [seen] = await getJson<Json[]>(b, `/api/v1/sandboxes?id=${first.id}`);
    expect(seen).toMatchObject({ status: 'RUNNING', session_api_key: first.session_api_key });
    expect(seen!.exposed_urls).toEqual(first.exposed_urls);
    expect(await postJson(b, `/api/v1/sandboxes/${first.id}/pause`)).toEqual({ success: true });
    expect(await status(a, first.id as string)).toBe('PAUSED');
    expect(await postJson(b, `/api/v1/sandboxes/${first.id}/resume`)).toEqual({ success: true });
    expect(await status(a, first.id as string)).toBe('RUNNING');
    const dir = join(a.dataDir, 'sandboxes', first.id as string);
    expect(existsSync(dir)).toBe(true);
    expect((await api(b, `/api/v1/sandboxes/${first.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await getJson(a, `/api/v1/sandboxes?id=${first.id}`)).toEqual([null]);
    expect(existsSync(dir)).toBe(false);

    // Stopping replica B stops only its own sandboxes; A's keep running and read as they are.
    const third = await start(a);
    const url = (third.exposed_urls as Json[])[0]!.url as string;
    await b.close({ remove: true });
    expect((await fetch(`${url}/alive`)).status).toBe(200);
    expect(await status(a, third.id as string)).toBe('RUNNING');
    expect(await status(a, second.id as string)).toBe('MISSING');
  });

  it('a replica starting up ends only its own cut-off start tasks, not another live one’s', async () => {
    const dataDir = tempDir();
    const tasks = a.store.documents('start_tasks');
    const now = new Date().toISOString();
    const task = (replica: string) => ({
      id: randomUUID(),
      ownerId: 'local',
      status: 'WORKING',
      replica,
      createdAt: now,
      updatedAt: now,
    });
    const mine = task(`${hostname()}:${dataDir}`);
    const theirs = task(a.controlPlane!.sandboxes.replica);
    await tasks.put(mine);
    await tasks.put(theirs);
    const c = await startServer({
      dataDir,
      databaseUrl: database(),
      env: { OH_SECRET_KEY: 'shared by the replicas' },
      controlPlane: { warmSpare: false, sandboxProvider: 'process' },
    });
    try {
      expect(c.controlPlane!.sandboxes.replica).toBe(mine.replica);
      expect(await tasks.get(mine.id)).toMatchObject({ status: 'ERROR' });
      expect(await tasks.get(theirs.id)).toMatchObject({ status: 'WORKING' });
    } finally {
      await c.close({ remove: true });
    }
  });
});
