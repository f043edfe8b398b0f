// archive (tar.gz and git-delta, made by the system's tar and git) and download-trajectory (a zip of the
// conversation), over real HTTP; archives are checked by unpacking them with the same tools (zips with
// Debian's unzip as well as the tests' own reader).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseEvent } from '../server/fixtures.js';
import { startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { zipEntries } from '../support/zip.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd }).toString();

/** A repository with one commit, then a change, a new file, a deletion, and noise the excludes drop. */
function repository(): string {
  const repo = join(tempDir('agentd-archive-'), 'project');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'main.txt'), 'one\n');
  writeFileSync(join(repo, 'gone.txt'), 'bye\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'remote', 'add', 'origin', 'https://user:s3cret-token@example.com/org/project.git');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'first');
  writeFileSync(join(repo, 'src', 'main.txt'), 'one\ntwo\n');
  writeFileSync(join(repo, 'new.bin'), Buffer.from([0, 1, 2, 255]));
  execFileSync('rm', [join(repo, 'gone.txt')]);
  mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), '');
  return repo;
}

const archive = (query: Record<string, string | string[]>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of [v].flat()) params.append(k, one);
  return api(server, `/api/file/archive?${params}`);
};

/** The paths in a tar.gz answer, as GNU tar lists them. */
async function tarNames(res: Response): Promise<string[]> {
  const file = join(tempDir('agentd-unpack-'), 'a.tar.gz');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return execFileSync('tar', ['-tzf', file]).toString().split('\n');
}

describe('archive', () => {
  it('tar.gz: the folder, without the default excludes or git credentials', async () => {
    const repo = repository();
    const res = await archive({ path: repo, format: 'tar.gz' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="project.tar.gz"');
    expect(decodeURIComponent(res.headers.get('x-archive-repo-remote') ?? '')).toBe(
      'https://example.com/org/project.git',
    );
    expect(res.headers.get('x-archive-head-commit')).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    // A token in the remote's query or fragment is cut as well.
    git(
      repo,
      'remote',
      'set-url',
      'origin',
      'https://example.com/org/project.git?access_token=s3cret#s3cret',
    );
    const queried = await archive({ path: repo, format: 'tar.gz' });
    expect(decodeURIComponent(queried.headers.get('x-archive-repo-remote') ?? '')).toBe(
      'https://example.com/org/project.git',
    );
    await queried.arrayBuffer();
    const names = await tarNames(res);
    expect(names).toContain('project/src/main.txt');
    expect(names).toContain('project/new.bin');
    expect(names.some((n) => n.includes('node_modules') || n.startsWith('project/.git'))).toBe(false);

    const full = await archive({
      path: repo,
      format: 'tar.gz',
      use_default_excludes: 'false',
      exclude: 'src',
    });
    const all = await tarNames(full);
    expect(all).toContain('project/node_modules/dep/index.js');
    expect(all).toContain('project/.git/HEAD');
    expect(all.some((n) => n.startsWith('project/src'))).toBe(false);
    // The remote URL with its token lives in .git/config: never archived.
    expect(all).not.toContain('project/.git/config');
    expect(all.some((n) => n.startsWith('project/.git/logs'))).toBe(false);
  });

  it('git-delta: a patch of the working tree that applies on the base commit', async () => {
    const repo = repository();
    const res = await archive({ path: repo });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/x-patch');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    expect(res.headers.get('x-archive-base-commit')).toBe(head);
    const patch = Buffer.from(await res.arrayBuffer());
    expect(patch.toString()).not.toContain('node_modules');
    // The repository's own index is untouched: nothing was staged.
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('');
    // Nor its object store: the new and changed files' blobs were written to a scratch folder.
    for (const file of ['new.bin', 'src/main.txt']) {
      const blob = git(repo, 'hash-object', file).trim();
      expect(() => git(repo, 'cat-file', '-e', blob)).toThrow();
    }
    const clone = join(tempDir('agentd-clone-'), 'c');
    execFileSync('git', ['clone', '-q', repo, clone]);
    writeFileSync(join(clone, '..', 'p.patch'), patch);
    git(clone, 'apply', '--binary', join(clone, '..', 'p.patch'));
    expect(readFileSync(join(clone, 'src', 'main.txt'), 'utf8')).toBe('one\ntwo\n');
    expect([...readFileSync(join(clone, 'new.bin'))]).toEqual([0, 1, 2, 255]);
    expect(() => readFileSync(join(clone, 'gone.txt'))).toThrow();
  });

  it('finds the one repository below a workspace base, as OpenHands does', async () => {
    const repo = repository();
    const base = join(repo, '..');
    const res = await archive({ path: base });
    expect(res.status).toBe(200);
    expect(decodeURIComponent(res.headers.get('x-archive-repo-root') ?? '')).toBe(repo);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="project.patch"');
    expect(await res.text()).toContain('+two');
  });

  it('does not search a big tree for its repository: past 2,000 folders, the folder is taken as given', async () => {
    const repo = repository();
    const base = join(repo, '..');
    for (let i = 0; i < 2_001; i++) mkdirSync(join(base, `d${i}`));
    const res = await archive({ path: base });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^Not a git repository/);
  });

  it("runs none of the repository's diff programs, and leaves out credential stores and repositories without commits", async () => {
    const repo = repository();
    const marks = tempDir('agentd-marks-');
    // What a sandbox could write into its repository: programs git would run on a diff.
    git(repo, 'config', 'diff.external', `touch ${join(marks, 'external')}`);
    git(repo, 'config', 'diff.sandboxed.command', `touch ${join(marks, 'command')}`);
    git(repo, 'config', 'diff.converted.textconv', `touch ${join(marks, 'textconv')}; cat`);
    writeFileSync(join(repo, '.gitattributes'), 'src/* diff=sandboxed\n*.bin diff=converted\n');
    // A credential store in the working tree, and a repository inside it with no commit yet.
    writeFileSync(join(repo, '.git-credentials'), 'https://user:ghp_STORED-TOKEN@github.com\n');
    mkdirSync(join(repo, 'src', 'nested'));
    git(join(repo, 'src', 'nested'), 'init', '-q');
    writeFileSync(join(repo, 'src', 'nested', 'draft.txt'), 'draft\n');

    const delta = await archive({ path: repo });
    expect(delta.status).toBe(200);
    const patch = await delta.text();
    expect(patch).toContain('+two');
    expect(patch).not.toContain('ghp_STORED-TOKEN');
    expect(patch).not.toContain('draft');
    const names = await tarNames(await archive({ path: repo, format: 'tar.gz' }));
    expect(names).toContain('project/src/main.txt');
    expect(names).not.toContain('project/.git-credentials');
    expect(readdirSync(marks)).toEqual([]);
  });

  it('answers 400 for a bad base_ref, a folder that is no repository, a relative path; 404 when missing', async () => {
    const repo = repository();
    const detail = async (res: Response) => [res.status, ((await res.json()) as { detail: string }).detail];
    expect(await detail(await archive({ path: repo, base_ref: '--output=/tmp/x' }))).toEqual([
      400,
      "base_ref must not start with '-'",
    ]);
    expect(await detail(await archive({ path: repo, base_ref: 'no-such-ref' }))).toEqual([
      400,
      "base_ref 'no-such-ref' could not be resolved",
    ]);
    const plain = tempDir('agentd-plain-');
    const [status, message] = await detail(await archive({ path: plain }));
    expect(status).toBe(400);
    expect(message).toMatch(/^Not a git repository/);
    expect((await archive({ path: 'relative' })).status).toBe(400);
    expect((await archive({ path: join(plain, 'missing') })).status).toBe(404);
    expect((await archive({ path: repo, format: 'zip' })).status).toBe(422);
  });
});

describe('download-trajectory', () => {
  it("zips the conversation's info and events as OpenHands lays them out", async () => {
    const { id } = await startConversation(server, llm, [{ text: 'done' }], { tools: ['file_editor'] });
    await waitForStatus(server, id, ['finished', 'idle']);
    const hex = id.replaceAll('-', '');
    const res = await api(server, `/api/file/download-trajectory/${hex}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${hex}.zip"`);
    const entries = zipEntries(Buffer.from(await res.arrayBuffer()));
    const meta = JSON.parse(entries.get(`${hex}/meta.json`)!.toString()) as { id: string; agent: unknown };
    expect(meta.id).toBe(id);
    // Secrets are masked as the API masks them: the scripted key never leaves.
    expect(JSON.stringify(meta)).not.toMatch(/sk-[0-9a-f]{8}-/);
    const events = await (await api(server, `/api/conversations/${id}/events/search`)).json();
    const items = (events as { items: { id: string }[] }).items;
    const names = [...entries.keys()].filter((n) => n.includes('/events/'));
    expect(names).toEqual(
      items.map((e, i) => `${hex}/events/event-${String(i).padStart(5, '0')}-${e.id}.json`),
    );
    expect(JSON.parse(entries.get(names[0]!)!.toString())).toEqual(items[0]);
  });

  it('answers 404 for an unknown conversation', async () => {
    const res = await api(server, '/api/file/download-trajectory/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
  });
});

describe('download-trajectory of a long conversation', () => {
  it('streams more than 65,535 events as a ZIP64 zip, every event in order, exactly as stored', async () => {
    const { id } = await startConversation(server, llm, [{ text: 'done' }]);
    await waitForStatus(server, id, ['finished', 'idle']);
    for (let i = 0; i < 14; i++) {
      await server.store.events.append(
        id,
        Array.from({ length: 5_000 }, () => pauseEvent()),
      );
    }
    const stored = (await server.store.events.after(id, 0, 100_000)).map((e) => [e.id, e.json] as const);
    const total = stored.length;
    const hex = id.replaceAll('-', '');
    const res = await api(server, `/api/file/download-trajectory/${hex}`);
    expect(res.status).toBe(200);
    const zip = Buffer.from(await res.arrayBuffer());
    const entries = zipEntries(zip);
    expect(entries.size).toBe(total + 1);
    const names = [...entries.keys()].slice(1);
    expect(names[0]).toBe(`${hex}/events/event-00000-${stored[0]![0]}.json`);
    expect(names[total - 1]).toBe(`${hex}/events/event-${total - 1}-${stored[total - 1]![0]}.json`);
    expect(names.map((name) => entries.get(name)!.toString())).toEqual(stored.map(([, json]) => json));
    // Debian's unzip, a reader of its own, agrees that every entry is whole.
    const file = join(tempDir('agentd-trajectory-'), 'long.zip');
    writeFileSync(file, zip);
    expect(execFileSync('unzip', ['-tqq', file]).toString()).toBe('');
    expect(execFileSync('zipinfo', ['-t', file]).toString()).toMatch(new RegExp(`^${total + 1} files`));
  }, 60_000);
});
