// home and search_subdirs, the workspace picker's reads, over real HTTP on a real folder tree.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
let tree: string;
const savedHome = process.env.HOME;

beforeAll(async () => {
  server = await startServer();
  // b, A, .hidden, c (folders), a file, and a symlink to a folder: only the folders are listed.
  tree = tempDir('agentd-browse-');
  for (const name of ['b', 'A', '.hidden', 'c']) mkdirSync(join(tree, name));
  writeFileSync(join(tree, 'file.txt'), '');
  symlinkSync(join(tree, 'b'), join(tree, 'link-to-b'));
  // The server runs in this process: os.homedir() reads HOME.
  process.env.HOME = tree;
});
afterAll(async () => {
  process.env.HOME = savedHome;
  await server.close({ remove: true });
});

const json = async (path: string) => {
  const res = await api(server, path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const subdirs = (query: Record<string, string>) =>
  json(`/api/file/search_subdirs?${new URLSearchParams(query)}`);

describe('home', () => {
  it("answers the server user's home, its folders as favorites and / as the location", async () => {
    const { status, body } = await json('/api/file/home');
    expect(status).toBe(200);
    expect(body).toEqual({
      home: tree,
      favorites: ['A', 'b', 'c'].map((label) => ({ label, path: join(tree, label) })),
      locations: [{ label: '/', path: '/' }],
    });
    const hidden = await json('/api/file/home?include_hidden=true');
    expect((hidden.body.favorites as { label: string }[]).map((f) => f.label)).toEqual([
      '.hidden',
      'A',
      'b',
      'c',
    ]);
  });
});

describe('search_subdirs', () => {
  it('lists folders only, sorted case-insensitively, in pages', async () => {
    const first = await subdirs({ path: tree, limit: '2' });
    expect(first).toEqual({
      status: 200,
      body: {
        items: [
          { name: 'A', path: join(tree, 'A') },
          { name: 'b', path: join(tree, 'b') },
        ],
        next_page_id: 'c',
      },
    });
    const second = await subdirs({ path: tree, limit: '2', page_id: 'c' });
    expect(second.body).toEqual({ items: [{ name: 'c', path: join(tree, 'c') }], next_page_id: null });
    const hidden = await subdirs({ path: tree, include_hidden: 'true' });
    expect((hidden.body.items as { name: string }[]).map((i) => i.name)).toEqual(['.hidden', 'A', 'b', 'c']);
  });

  it('answers 404 for a missing folder, 400 for a file or a relative path, 422 for a bad limit', async () => {
    expect(await subdirs({ path: join(tree, 'missing') })).toEqual({
      status: 404,
      body: { detail: 'Directory not found' },
    });
    expect(await subdirs({ path: join(tree, 'file.txt') })).toEqual({
      status: 400,
      body: { detail: 'Path is not a directory' },
    });
    expect((await subdirs({ path: 'relative' })).status).toBe(400);
    expect((await subdirs({ path: tree, limit: '101' })).status).toBe(422);
    expect((await subdirs({})).status).toBe(422);
  });
});
