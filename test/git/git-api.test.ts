// The git API driven as OpenHands' SDK drives it (RemoteWorkspace.git_changes / git_diff: GET with
// `?path=<absolute>` and the session key), on real repositories: modified, deleted, staged, renamed
// and untracked files, history, one commit's changes, and the folders that are no repository.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { commitAll, git, nestedRepos, newRepo, write } from './repos.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface Commit {
  sha: string;
  short_sha: string;
  timestamp: string;
}
type Body = { detail?: string; has_more?: boolean; commits?: Commit[] } & { status: string }[];

/** A GET as the SDK sends it (httpx `params`), answering the status and the parsed body. */
async function get(path: string, query: Record<string, string> = {}) {
  const qs = new URLSearchParams(query).toString();
  const res = await api(server, qs ? `${path}?${qs}` : path);
  return { status: res.status, body: (await res.json()) as Body };
}

describe('a repository with work in progress', () => {
  let repo: string;
  let first: string;
  let second: string;
  beforeAll(() => {
    repo = newRepo({ 'a.txt': 'one\n', 'b.txt': 'bee\n', 'c.txt': 'sea\n', 'old.txt': 'moving text\n' });
    first = git(repo, 'rev-parse', 'HEAD');
    write(repo, 'c.txt', 'sea\nmore\n');
    write(repo, 'd.txt', 'dee\n');
    git(repo, 'mv', 'old.txt', 'moved.txt');
    second = commitAll(repo, 'second: edit c, add d, move old');
    // The work in progress, against HEAD (no remote: the display base is HEAD).
    write(repo, 'a.txt', 'one changed\n');
    rmSync(join(repo, 'b.txt'));
    git(repo, 'mv', 'moved.txt', 'renamed.txt');
    write(repo, 'staged.txt', 'staged\n');
    git(repo, 'add', 'staged.txt');
    write(repo, 'with space.txt', 'untracked\n');
    write(repo, 'dir/new.txt', 'untracked too\n');
    write(repo, '.gitignore', 'ignored.log\n');
    write(repo, 'ignored.log', 'never listed\n');
  });

  const expected = [
    { status: 'ADDED', path: '.gitignore' },
    { status: 'UPDATED', path: 'a.txt' },
    { status: 'DELETED', path: 'b.txt' },
    { status: 'ADDED', path: 'dir/new.txt' },
    { status: 'DELETED', path: 'moved.txt' },
    { status: 'ADDED', path: 'renamed.txt' },
    { status: 'ADDED', path: 'staged.txt' },
    { status: 'ADDED', path: 'with space.txt' },
  ];

  it('lists changes, untracked and renamed files included, by query and by path', async () => {
    expect(await get('/api/git/changes', { path: repo })).toEqual({ status: 200, body: expected });
    expect(await get(`/api/git/changes${repo}`)).toEqual({ status: 200, body: expected });
    // The old SDK joined the absolute path on: a double slash.
    expect(await get(`/api/git/changes/${repo}`)).toEqual({ status: 200, body: expected });
    // A sub-folder: only its changes, relative to it.
    expect((await get('/api/git/changes', { path: join(repo, 'dir') })).body).toEqual([
      { status: 'ADDED', path: 'new.txt' },
    ]);
  });

  it('compares against an explicit ref, and refuses one that does not resolve', async () => {
    const res = await get('/api/git/changes', { path: repo, ref: first });
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({ status: 'UPDATED', path: 'c.txt' });
    expect(res.body).toContainEqual({ status: 'ADDED', path: 'd.txt' });
    expect(res.body).toContainEqual({ status: 'DELETED', path: 'old.txt' });
    const bad = await get('/api/git/changes', { path: repo, ref: 'no-such-branch' });
    expect(bad).toEqual({ status: 400, body: { detail: 'Unknown ref: no-such-branch' } });
    expect((await get('/api/git/changes', { path: repo, ref: '--output=/tmp/x' })).status).toBe(400);
  });

  it('gives both sides of a file: modified, deleted, untracked, by query and by path', async () => {
    expect(await get('/api/git/diff', { path: join(repo, 'a.txt') })).toEqual({
      status: 200,
      body: { modified: 'one changed', original: 'one' },
    });
    expect((await get(`/api/git/diff${join(repo, 'a.txt')}`)).body).toEqual({
      modified: 'one changed',
      original: 'one',
    });
    expect((await get('/api/git/diff', { path: join(repo, 'b.txt') })).body).toEqual({
      modified: '',
      original: 'bee',
    });
    expect((await get('/api/git/diff', { path: join(repo, 'with space.txt') })).body).toEqual({
      modified: 'untracked',
      original: '',
    });
    expect((await get('/api/git/diff', { path: join(repo, 'c.txt'), ref: first })).body).toEqual({
      modified: 'sea\nmore',
      original: 'sea',
    });
  });

  it('answers 404 for a file that is nowhere, 400 for a folder or a ref with a commit', async () => {
    const missing = await get('/api/git/diff', { path: join(repo, 'nope', 'none.txt') });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('No such file');
    expect((await get('/api/git/diff', { path: join(repo, 'dir') })).status).toBe(400);
    const both = await get('/api/git/diff', { path: join(repo, 'a.txt'), ref: 'HEAD', commit: second });
    expect(both).toEqual({ status: 400, body: { detail: "'ref' and 'commit' are mutually exclusive" } });
  });

  it('lists commits newest first, with a page limit', async () => {
    const all = await get('/api/git/commits', { path: repo });
    expect(all.status).toBe(200);
    expect(all.body.has_more).toBe(false);
    expect(all.body.commits?.map((c) => c.sha)).toEqual([second, first]);
    const top = all.body.commits?.[0] as Commit;
    expect(top).toMatchObject({ subject: 'second: edit c, add d, move old', author: 'Test Author' });
    expect(second.startsWith(top.short_sha)).toBe(true);
    expect(top.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d|Z)$/);
    const page = await get('/api/git/commits', { path: repo, limit: '1' });
    expect(page.body).toEqual({ commits: [top], has_more: true });
    expect((await get('/api/git/commits', { path: repo, limit: '0' })).status).toBe(422);
  });

  it("gives one commit's changes and a file's diff at a commit, deleted files included", async () => {
    const changes = await get(`/api/git/commits/${second}/changes`, { path: repo });
    expect(changes.status).toBe(200);
    expect(changes.body).toEqual(
      expect.arrayContaining([
        { status: 'UPDATED', path: 'c.txt' },
        { status: 'ADDED', path: 'd.txt' },
        { status: 'DELETED', path: 'old.txt' },
        { status: 'ADDED', path: 'moved.txt' },
      ]),
    );
    expect(changes.body).toHaveLength(4);
    const root = await get(`/api/git/commits/${first.slice(0, 7)}/changes`, { path: repo });
    expect(root.body.map((c) => c.status)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED']);
    // old.txt is gone from disk and from HEAD: both sides still come from git objects.
    expect((await get('/api/git/diff', { path: join(repo, 'old.txt'), commit: second })).body).toEqual({
      modified: '',
      original: 'moving text',
    });
  });

  it('refuses a malformed sha (422) and an unknown one (400)', async () => {
    expect((await get('/api/git/commits/zzzz/changes', { path: repo })).status).toBe(422);
    const unknown = await get('/api/git/commits/deadbeef/changes', { path: repo });
    expect(unknown).toEqual({ status: 400, body: { detail: 'Unknown commit: deadbeef' } });
    expect((await get('/api/git/diff', { path: join(repo, 'a.txt'), commit: 'deadbeef' })).status).toBe(400);
  });
});

describe('folders that are not (yet) repositories', () => {
  it('says a plain folder is no repository (400), and a missing one is not there (404)', async () => {
    const plain = tempDir('agentd-plain-');
    write(plain, 'file.txt', 'x');
    for (const [path, query] of [
      ['/api/git/changes', { path: plain }],
      ['/api/git/commits', { path: plain }],
      ['/api/git/diff', { path: join(plain, 'file.txt') }],
      ['/api/git/commits/abcd/changes', { path: plain }],
    ] as const) {
      expect(await get(path, query)).toEqual({
        status: 400,
        body: { detail: `Not a git repository: ${plain}` },
      });
    }
    const gone = join(plain, 'missing');
    expect(await get('/api/git/changes', { path: gone })).toEqual({
      status: 404,
      body: { detail: `No such folder: ${gone}` },
    });
    expect((await get(`/api/git/changes${gone}`)).status).toBe(404);
    expect((await get('/api/git/commits', { path: gone })).status).toBe(404);
    expect((await get('/api/git/changes', { path: join(plain, 'file.txt') })).status).toBe(400);
    expect((await get('/api/git/diff', { path: join(gone, 'x.txt') })).status).toBe(404);
    expect((await get(`/api/git/diff${join(gone, 'x.txt')}`)).status).toBe(404);
    expect((await get('/api/git/diff', { path: join(gone, 'x.txt'), commit: 'abcd' })).status).toBe(404);
  });

  it('says a .git folder or a bare repository has no work tree (400)', async () => {
    const repo = newRepo({ 'a.txt': 'a' });
    const bare = join(tempDir('agentd-bare-'), 'bare.git');
    git(repo, 'clone', '-q', '--bare', repo, bare);
    for (const path of [join(repo, '.git'), bare]) {
      const res = await get('/api/git/changes', { path });
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(`Not a git work tree (a .git folder or a bare repository): ${path}`);
    }
  });

  it('treats a repository without commits as all new', async () => {
    const repo = newRepo();
    write(repo, 'first.txt', 'hello\n');
    const expected = [{ status: 'ADDED', path: 'first.txt' }];
    expect((await get('/api/git/changes', { path: repo })).body).toEqual(expected);
    expect((await get('/api/git/changes', { path: repo, ref: 'HEAD' })).body).toEqual(expected);
    expect((await get('/api/git/commits', { path: repo })).body).toEqual({ commits: [], has_more: false });
    expect((await get('/api/git/diff', { path: join(repo, 'first.txt') })).body).toEqual({
      modified: 'hello',
      original: '',
    });
  });

  it('lists repositories directly inside the folder under their folder name', async () => {
    const { outer } = nestedRepos();
    write(outer, 'inner/kept.txt', 'kept, edited\n');
    write(outer, 'top.txt', 'top, edited\n');
    expect((await get('/api/git/changes', { path: outer })).body).toEqual([
      { status: 'UPDATED', path: 'inner/kept.txt' },
      { status: 'UPDATED', path: 'top.txt' },
    ]);
  });
});

it('keeps odd file names whole (tabs, newlines, non-ASCII, a leading dash)', async () => {
  const names = ['tab\tname.txt', 'new\nline.txt', 'café ü.txt', '-rf'];
  const repo = newRepo(Object.fromEntries(names.map((n) => [n, 'v1\n'])));
  for (const n of names) write(repo, n, 'v2\n');
  write(repo, 'untracked\tcafé.txt', 'x');
  const res = await get('/api/git/changes', { path: repo });
  expect(res.body).toEqual(
    [
      ...names.map((path) => ({ status: 'UPDATED', path })),
      { status: 'ADDED', path: 'untracked\tcafé.txt' },
    ].sort((a, b) => (a.path < b.path ? -1 : 1)),
  );
  expect((await get('/api/git/diff', { path: join(repo, '-rf') })).body).toEqual({
    modified: 'v2',
    original: 'v1',
  });
});

describe('the display base of a clone', () => {
  it("shows a feature branch's committed work against its fork point from origin's default branch", async () => {
    const origin = newRepo({ 'base.txt': 'base\n' });
    const clone = join(tempDir('agentd-clone-'), 'clone');
    git(origin, 'clone', '-q', origin, clone);
    git(clone, 'checkout', '-q', '-b', 'feature');
    write(clone, 'feature.txt', 'feature\n');
    commitAll(clone, 'feature work');
    write(clone, 'base.txt', 'base, edited\n');
    expect((await get('/api/git/changes', { path: clone })).body).toEqual([
      { status: 'UPDATED', path: 'base.txt' },
      { status: 'ADDED', path: 'feature.txt' },
    ]);
    // git-status style on request.
    expect((await get('/api/git/changes', { path: clone, ref: 'HEAD' })).body).toEqual([
      { status: 'UPDATED', path: 'base.txt' },
    ]);
  });
});

it('needs the session key', async () => {
  const res = await api(server, `/api/git/changes?path=${encodeURIComponent(tempDir())}`, { key: null });
  expect(res.status).toBe(401);
});

it("runs none of a repository's own commands when it reads it: its filters and fsmonitor stay off", async () => {
  const repo = newRepo({ 'f.txt': 'one\n' });
  const marker = join(tempDir('agentd-git-marker-'), 'ran');
  write(repo, '.gitattributes', '* filter=evil\n');
  git(repo, 'config', 'filter.evil.clean', `sh -c "touch ${marker}; cat"`);
  git(repo, 'config', 'filter.evil.smudge', `sh -c "touch ${marker}; cat"`);
  git(repo, 'config', 'core.fsmonitor', `sh -c "touch ${marker}"`);
  write(repo, 'f.txt', 'two\n');
  // Older than git's racy-clean window, so git compares the file's content (through the filter).
  utimesSync(join(repo, 'f.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
  expect((await get('/api/git/changes', { path: repo })).status).toBe(200);
  expect((await get('/api/git/diff', { path: join(repo, 'f.txt') })).status).toBe(200);
  const delta = await api(server, `/api/file/archive?path=${encodeURIComponent(repo)}&format=git-delta`);
  expect(delta.status).toBe(200);
  await delta.arrayBuffer();
  expect(existsSync(marker)).toBe(false);
  const outside = await api(
    server,
    `/api/file/archive?path=${encodeURIComponent(repo)}&format=git-delta&exclude=../x`,
  );
  expect(outside.status).toBe(400);
});

it("reads a repository's filter settings once per request, and afresh for each", async () => {
  const { outer, inner } = nestedRepos();
  write(outer, 'top.txt', 'top, edited\n');
  // A git first on the PATH that notes each call's folder and arguments, then runs the real one.
  const bin = tempDir('agentd-git-bin-');
  const calls = join(bin, 'calls');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$(pwd -P) $*" >> ${calls}\nexec ${real} "$@"\n`, {
    mode: 0o755,
  });
  const readingsIn = (dir: string) => {
    const lines = readFileSync(calls, 'utf8').trim().split('\n');
    const inDir = lines.filter((l) => l.startsWith(`${realpathSync(dir)} `));
    return {
      commands: inDir.length,
      readings: inDir.filter((l) => l.includes('--get-regexp ^filter')).length,
    };
  };
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    expect((await get('/api/git/changes', { path: outer })).status).toBe(200);
    // Each repository's config read once, for the several commands run in it.
    expect(readingsIn(outer).readings).toBe(1);
    expect(readingsIn(outer).commands).toBeGreaterThan(3);
    expect(readingsIn(inner).readings).toBe(1);

    // A filter added between two requests is read by the next one, and turned off.
    const marker = join(tempDir('agentd-git-marker-'), 'ran');
    write(outer, '.gitattributes', '* filter=evil\n');
    git(outer, 'config', 'filter.evil.clean', `sh -c "touch ${marker}; cat"`);
    utimesSync(join(outer, 'top.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    writeFileSync(calls, '');
    expect((await get('/api/git/changes', { path: outer })).status).toBe(200);
    expect(readingsIn(outer).readings).toBe(1);
    expect(existsSync(marker)).toBe(false);
  } finally {
    process.env.PATH = path;
  }
});

it("sets the nested repositories' changes apart in work that grows with the changes, not changes × nested", async () => {
  const outer = newRepo();
  for (let i = 0; i < 300; i++) write(outer, `f${i}.txt`, 'x\n');
  for (let i = 0; i < 30; i++) {
    write(outer, `repo${i}/a.txt`, 'a\n');
    git(join(outer, `repo${i}`), 'init', '-q');
  }
  // Counted, not timed: a scan of every nested folder per change was a prefix test each (9000 here).
  const startsWith = vi.spyOn(String.prototype, 'startsWith');
  try {
    const { status, body } = await get('/api/git/changes', { path: outer });
    expect(status).toBe(200);
    expect(body).toHaveLength(330);
    expect(startsWith.mock.calls.length).toBeLessThan(3000);
  } finally {
    startsWith.mockRestore();
  }
});
