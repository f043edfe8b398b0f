// /api/workspaces (OpenHands' agent server): a user's saved workspaces and workspace parents, kept by
// the server so every browser sees the same lists. OpenHands' wire: camelCase `parentPath` and
// `workspaceParents`, additions deduplicated by path (the first wins), removals by path (404 when none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ keys: ['alice-key', 'bob-key'] });
});
afterAll(() => server.close({ remove: true }));

type Lists = { workspaces: Record<string, unknown>[]; workspaceParents: Record<string, unknown>[] };

const call = async (path: string, init: { method?: string; body?: unknown; key?: string } = {}) => {
  const res = await api(server, path, {
    method: init.method ?? 'GET',
    key: init.key ?? 'alice-key',
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Lists & { detail?: unknown; deleted?: boolean } };
};
const item = (path: string, extra: Record<string, unknown> = {}) => ({
  id: path,
  name: path.slice(1),
  path,
  ...extra,
});
const paths = (list: Record<string, unknown>[]) => list.map((w) => w.path);

describe('/api/workspaces', () => {
  it('starts empty, appends by path (the first of a path wins), keeps parentPath only when given', async () => {
    expect((await call('/api/workspaces')).body).toEqual({ workspaces: [], workspaceParents: [] });
    const first = await call('/api/workspaces', {
      method: 'POST',
      body: {
        workspaces: [
          item('/a'),
          { id: 'second', name: 'b', path: '/b', parentPath: '/root' },
          { id: 'dup', name: 'dup', path: '/a' },
          { id: '/c', name: 'c', path: '/c', parent_path: '/snake', ignored: 1 },
        ],
      },
    });
    expect(first.status).toBe(200);
    expect(first.body.workspaces).toEqual([
      item('/a'),
      { id: 'second', name: 'b', path: '/b', parentPath: '/root' },
      { id: '/c', name: 'c', path: '/c', parentPath: '/snake' },
    ]);
    const again = await call('/api/workspaces', {
      method: 'POST',
      body: { workspaces: [item('/a', { name: 'x' })] },
    });
    expect(paths(again.body.workspaces)).toEqual(['/a', '/b', '/c']);
    expect(again.body.workspaces[0]?.name).toBe('a');
    expect((await call('/api/workspaces')).body).toEqual(again.body);
  });

  it('keeps parents apart from workspaces, and removes each by path (404 when nothing is saved there)', async () => {
    const added = await call('/api/workspaces/parents', {
      method: 'POST',
      body: { parents: [item('/p'), item('/p')] },
    });
    expect(added.status).toBe(200);
    expect(added.body.workspaceParents).toEqual([item('/p')]);
    expect(paths(added.body.workspaces)).toEqual(['/a', '/b', '/c']);

    expect(await call('/api/workspaces/parents?path=%2Fp', { method: 'DELETE' })).toEqual({
      status: 200,
      body: { deleted: true },
    });
    expect((await call('/api/workspaces/parents?path=%2Fp', { method: 'DELETE' })).status).toBe(404);
    expect((await call('/api/workspaces?path=%2Fb', { method: 'DELETE' })).status).toBe(200);
    const missing = await call('/api/workspaces?path=%2Fnope', { method: 'DELETE' });
    expect(missing).toEqual({ status: 404, body: { detail: 'Workspace not found' } });
    const left = (await call('/api/workspaces')).body;
    expect(paths(left.workspaces)).toEqual(['/a', '/c']);
    expect(left.workspaceParents).toEqual([]);
  });

  it("is each user's own", async () => {
    expect((await call('/api/workspaces', { key: 'bob-key' })).body).toEqual({
      workspaces: [],
      workspaceParents: [],
    });
    expect((await call('/api/workspaces?path=%2Fa', { method: 'DELETE', key: 'bob-key' })).status).toBe(404);
    expect(paths((await call('/api/workspaces')).body.workspaces)).toEqual(['/a', '/c']);
  });

  it('keeps the lists across a restart, apart from the settings', async () => {
    const dataDir = server.dataDir;
    for (let i = 0; i < 12; i++)
      await call('/api/workspaces', {
        method: 'POST',
        key: 'bob-key',
        body: { workspaces: [item(`/w${i}`)] },
      });
    const before = (await call('/api/workspaces', { key: 'bob-key' })).body;
    expect(before.workspaces).toHaveLength(12);
    await server.close();
    server = await startServer({ keys: ['alice-key', 'bob-key'], dataDir });
    expect((await call('/api/workspaces', { key: 'bob-key' })).body).toEqual(before);
    // The settings of the same user are a document of their own, untouched by these.
    const settings = await api(server, '/api/settings', { key: 'bob-key' });
    expect(await settings.json()).not.toHaveProperty('workspaces');
  });

  it('refuses what is not a workspace (422 at the member) and a list past 500 entries (409)', async () => {
    const bad = [
      { workspaces: [{ id: '/x', name: '', path: '/x' }] },
      { workspaces: [{ id: '/x', name: 'x' }] },
      { workspaces: [{ id: '/x', name: 'x', path: 'p'.repeat(4097) }] },
      { workspaces: 'nope' },
      {},
    ];
    for (const body of bad)
      expect(
        (await call('/api/workspaces', { method: 'POST', body })).status,
        JSON.stringify(body).slice(0, 60),
      ).toBe(422);
    expect((await call('/api/workspaces', { method: 'DELETE' })).status).toBe(422);

    const many = Array.from({ length: 498 }, (_, i) => item(`/many/${i}`));
    expect((await call('/api/workspaces', { method: 'POST', body: { workspaces: many } })).status).toBe(200);
    const over = await call('/api/workspaces', {
      method: 'POST',
      body: { workspaces: [item('/x'), item('/y')] },
    });
    expect(over.status).toBe(409);
    expect(over.body.detail).toMatch(/At most 500 saved workspaces/);
    // Nothing of a refused addition is kept; what is already saved can still be sent again.
    const after = (await call('/api/workspaces')).body.workspaces;
    expect(after).toHaveLength(500);
    expect(
      (await call('/api/workspaces', { method: 'POST', body: { workspaces: [item('/a')] } })).status,
    ).toBe(200);
  });

  it('answers nobody without a key', async () => {
    const res = await api(server, '/api/workspaces', { key: null });
    expect(res.status).toBe(401);
  });
});
