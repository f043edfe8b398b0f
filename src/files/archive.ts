// A folder as one download, made by the system's own tools and streamed as they write it: `tar.gz`
// (GNU tar) or `git-delta` (a binary git patch of the working tree against a base, made with a
// throwaway index so the repository's own index is never touched). Both leave out OpenHands' default
// excludes unless asked not to, and never take git's credential-bearing files.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { EMPTY_TREE, gitEnv, NO_DIFF_PROGRAMS, oneReading, safeGitArgs } from '../git/index.js';
import { absolutePath, FileOperationError, fsFailure } from './errors.js';

const run = promisify(execFile);

export const ARCHIVE_FORMATS = ['git-delta', 'tar.gz'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

/** OpenHands' default excludes: generated and dependency folders that bloat an archive. */
export const DEFAULT_EXCLUDES = [
  '.git/',
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '.mypy_cache/',
  '.pytest_cache/',
  '.ruff_cache/',
  'dist/',
  'build/',
  '.next/',
  'target/',
  '*.pyc',
];

/** Files inside any .git folder that can hold a token (a tokenized remote URL, saved credentials). */
const SENSITIVE_GIT_FILES = ['config', 'config.worktree', 'credentials', 'FETCH_HEAD', 'logs'];

/**
 * git's credential stores wherever they lie in the folder (`~/.git-credentials` and
 * `~/.config/git/credentials` when the folder is a home): excluded from every archive, like the above.
 */
const CREDENTIAL_STORES = ['.git-credentials', '.config/git/credentials'];

/** Repositories without a commit that a delta leaves out, at most (each costs one more `git add`). */
const MAX_EMPTY_REPOSITORIES = 20;

const GIT_TIMEOUT_MS = 300_000;

export interface ArchiveRequest {
  path: string;
  format: ArchiveFormat;
  baseRef?: string;
  useDefaultExcludes: boolean;
  exclude: readonly string[];
}

export interface Archive {
  stream: Readable;
  filename: string;
  contentType: string;
  headers: Record<string, string>;
}

export async function archiveDirectory(request: ArchiveRequest): Promise<Archive> {
  const target = absolutePath(request.path);
  const what = { missing: 'Directory not found', wrongKind: 'Path is not a directory' };
  const info = await stat(target).catch((error) => fsFailure(error, what));
  if (!info.isDirectory()) throw new FileOperationError(400, 'Path is not a directory');
  if (request.baseRef?.startsWith('-')) throw new FileOperationError(400, "base_ref must not start with '-'");
  const excludes = [
    ...(request.useDefaultExcludes ? DEFAULT_EXCLUDES : []),
    ...request.exclude,
    ...CREDENTIAL_STORES,
  ];
  const root = await repositoryBelow(target);
  // The repository's filter drivers are read once for all of this archive's git commands (git/run.ts).
  return oneReading(() => archiveOf(root, request, excludes));
}

async function archiveOf(
  root: string,
  request: ArchiveRequest,
  excludes: readonly string[],
): Promise<Archive> {
  const repo = await repoMetadata(root);
  if (request.format === 'tar.gz') {
    return {
      // tar exits 1 when a file changed while it read it: the archive is still whole.
      stream: await streamOf(tarArgs(root, excludes), { cwd: root, okCodes: [0, 1] }),
      filename: `${basename(root) || 'root'}.tar.gz`,
      contentType: 'application/gzip',
      headers: repo?.headers ?? {},
    };
  }
  if (!repo) throw new FileOperationError(400, `Not a git repository: ${request.path}`);
  return gitDelta(root, repo, request.baseRef, excludes);
}

/** Folders never searched for the workspace's repository: they hold vendored repositories of their own. */
const NOT_SEARCHED = new Set(['node_modules', 'venv', 'site-packages', 'vendor']);

/** Folders the search for a workspace's repository looks into at most: a base holding a clone has few. */
const SEARCH_LIMIT = 2_000;
/** Children whose `.git` is looked for at once. */
const PARALLEL_CHECKS = 64;

/**
 * The folder to archive: `dir` itself when it holds `.git`, else the one repository found within three
 * levels below it (a workspace base with the project cloned inside, as OpenHands resolves it); with
 * none or several, or when the search would look into more than SEARCH_LIMIT folders (a big tree is no
 * workspace base; 150k folders took 14 s before the answer began), `dir` as given.
 */
async function repositoryBelow(dir: string): Promise<string> {
  if (await isRepository(dir)) return dir;
  const found: string[] = [];
  const frontier: [string, number][] = [[dir, 0]];
  let looked = 0;
  while (frontier.length > 0 && found.length < 2) {
    const [current, depth] = frontier.pop()!;
    if (depth >= 3) continue;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    const children = entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_SEARCHED.has(e.name))
      .map((e) => join(current, e.name));
    // Every folder looked into counts, at every level: the bound is on the work, not on a level's width.
    looked += children.length;
    if (looked > SEARCH_LIMIT) return dir;
    for (let i = 0; i < children.length; i += PARALLEL_CHECKS) {
      const some = children.slice(i, i + PARALLEL_CHECKS);
      const repos = await Promise.all(some.map(isRepository));
      some.forEach((child, k) => {
        if (repos[k]) found.push(child);
        else frontier.push([child, depth + 1]);
      });
    }
  }
  return found.length === 1 ? found[0]! : dir;
}

const isRepository = (dir: string) =>
  stat(join(dir, '.git')).then(
    () => true,
    () => false,
  );

function tarArgs(target: string, excludes: readonly string[]): string[] {
  const parent = dirname(target);
  const name = basename(target) || '.';
  // GNU tar's exclusion patterns are unanchored and `*` crosses `/`: `node_modules` prunes that folder
  // at any depth (a trailing slash is dropped, so a file of that name goes too).
  const patterns = [
    ...excludes.map((e) => e.replace(/\/+$/, '')).filter((e) => e !== ''),
    ...SENSITIVE_GIT_FILES.flatMap((f) => [`.git/${f}`, `.git/modules/*/${f}`]),
  ];
  return [
    'tar',
    '-czf',
    '-',
    '--ignore-failed-read',
    '--warning=no-file-changed',
    ...patterns.map((p) => `--exclude=${p}`),
    '-C',
    parent,
    '--',
    name,
  ];
}

interface RepoMetadata {
  root: string;
  headers: Record<string, string>;
}

// With the git routes' settings and environment (git/run.ts): reading a repository runs none of its own commands
// (fsmonitor, filters), though `add -A` below reads every file of the working tree; it writes only to
// a scratch folder of its own (scratchOf).
const git = async (cwd: string, args: string[], env?: NodeJS.ProcessEnv) =>
  run('git', [...(await safeGitArgs(cwd)), ...args], {
    cwd,
    env: { ...gitEnv(), ...env },
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 1024 * 1024,
  }).then((r) => r.stdout.trim());
const gitOrNull = (cwd: string, args: string[]) => git(cwd, args).catch(() => null);

/** The repository `dir` is in, and the headers that name it (the remote without any credentials in it). */
async function repoMetadata(dir: string): Promise<RepoMetadata | null> {
  const root = await gitOrNull(dir, ['rev-parse', '--show-toplevel']);
  if (!root) return null;
  const headers: Record<string, string> = { 'X-Archive-Repo-Root': encodeURIComponent(root) };
  const remote = await gitOrNull(dir, ['remote', 'get-url', 'origin']);
  if (remote) headers['X-Archive-Repo-Remote'] = encodeURIComponent(withoutCredentials(remote));
  const branch = await gitOrNull(dir, ['rev-parse', '--abbrev-ref', 'HEAD']);
  if (branch && branch !== 'HEAD') headers['X-Archive-Branch'] = encodeURIComponent(branch);
  const head = await gitOrNull(dir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  if (head) headers['X-Archive-Head-Commit'] = head;
  return { root, headers };
}

/** The remote without what may carry a credential: user and password, query (`?access_token=…`), fragment. */
function withoutCredentials(remote: string): string {
  try {
    const url = new URL(remote);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return remote; // scp-like `git@host:path`: no secret in it
  }
}

/** The base of a delta: the one asked for, else the branch's upstream on origin, else HEAD, else nothing. */
async function baseOf(dir: string, baseRef: string | undefined): Promise<string> {
  if (baseRef !== undefined) {
    const sha = await gitOrNull(dir, [
      'rev-parse',
      '--verify',
      '-q',
      '--end-of-options',
      `${baseRef}^{commit}`,
    ]);
    if (!sha) throw new FileOperationError(400, `base_ref '${baseRef}' could not be resolved`);
    return sha;
  }
  const branch = await gitOrNull(dir, ['rev-parse', '--abbrev-ref', 'HEAD']);
  const upstream =
    branch && branch !== 'HEAD'
      ? await gitOrNull(dir, ['rev-parse', '--verify', '-q', `refs/remotes/origin/${branch}^{commit}`])
      : null;
  return upstream ?? (await gitOrNull(dir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'])) ?? EMPTY_TREE;
}

/**
 * Excludes as git pathspecs, with gitignore's meaning (a bare name at any depth; `/name` or `a/b` from
 * the top; `dir/` folders only); a `..` would name something outside, which git refuses: a 400 here.
 */
function pathspecs(excludes: readonly string[]): string[] {
  return excludes.flatMap((raw) => {
    const folderOnly = raw.endsWith('/');
    const trimmed = raw.replace(/\/+$/, '');
    const pattern = trimmed.replace(/^\/+/, '');
    if (pattern === '') return [];
    if (pattern.split('/').includes('..'))
      throw new FileOperationError(
        400,
        `exclude must name something inside the folder: ${raw.slice(0, 200)}`,
      );
    const at = pattern.includes('/') || trimmed !== pattern ? pattern : `**/${pattern}`;
    return [...(folderOnly ? [] : [`:(glob,exclude)${at}`]), `:(glob,exclude)${at}/**`];
  });
}

/**
 * Where git writes while it makes a delta, so that reading a repository leaves it as it was: a
 * throwaway index, and a throwaway object folder for the blobs `add -A` hashes (the working tree's new
 * and changed files), which reads the repository's own objects as an alternate.
 */
async function scratchOf(dir: string): Promise<{ env: NodeJS.ProcessEnv; remove: () => Promise<void> }> {
  const objects = resolve(dir, await git(dir, ['rev-parse', '--git-path', 'objects']));
  const scratch = await mkdtemp(join(tmpdir(), 'agentd-delta-'));
  const remove = () => rm(scratch, { recursive: true, force: true });
  // git takes a missing object folder for no repository.
  await mkdir(join(scratch, 'objects')).catch(async (error: unknown) => {
    await remove();
    throw error;
  });
  return {
    env: {
      GIT_INDEX_FILE: join(scratch, 'index'),
      GIT_OBJECT_DIRECTORY: join(scratch, 'objects'),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
    },
    remove,
  };
}

/**
 * Stages the working tree in the scratch index. A repository inside it without a commit cannot be
 * staged (git has no commit to point to): it is left out, as an empty folder would be, rather than
 * failing the whole delta.
 */
async function addWorkTree(dir: string, specs: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const used = [...specs];
  for (;;) {
    try {
      await git(dir, ['add', '-A', '--', '.', ...used], env);
      return;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '');
      const empty = /'(.+?)\/?' does not have a commit checked out/.exec(stderr)?.[1];
      if (empty === undefined || used.length - specs.length >= MAX_EMPTY_REPOSITORIES) throw error;
      used.push(`:(exclude,literal)${empty}`);
    }
  }
}

async function gitDelta(
  dir: string,
  repo: RepoMetadata,
  baseRef: string | undefined,
  excludes: readonly string[],
): Promise<Archive> {
  const base = await baseOf(dir, baseRef);
  const specs = pathspecs(excludes);
  let remove = async () => {};
  try {
    const scratch = await scratchOf(dir);
    remove = scratch.remove;
    const env = scratch.env;
    await git(dir, base === EMPTY_TREE ? ['read-tree', '--empty'] : ['read-tree', base], env);
    await addWorkTree(dir, specs, env);
    const stream = await streamOf(
      [
        'git',
        ...(await safeGitArgs(dir)),
        'diff',
        ...NO_DIFF_PROGRAMS,
        '--binary',
        '--cached',
        base,
        '--',
        '.',
        ...specs,
      ],
      { cwd: dir, env: { ...gitEnv(), ...env }, onEnd: remove },
    );
    const headers = { ...repo.headers };
    if (base !== EMPTY_TREE) {
      headers['X-Archive-Base-Commit'] = base;
      headers['X-Archive-Base-Ref'] = encodeURIComponent(baseRef ?? 'auto');
    }
    return { stream, filename: `${basename(repo.root)}.patch`, contentType: 'text/x-patch', headers };
  } catch (error) {
    await remove();
    if (error instanceof FileOperationError) throw error;
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`git failed making the delta: ${stderr || (error as Error).message}`);
  }
}

/**
 * A command's standard output as a stream, once the command has started. If it fails after the
 * answer began, the stream is destroyed, so the client sees a cut transfer rather than a whole-looking
 * archive that is not.
 */
async function streamOf(
  argv: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; onEnd?: () => Promise<unknown>; okCodes?: number[] },
): Promise<Readable> {
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const out = new PassThrough();
  const finish = async (error: Error | null) => {
    await options.onEnd?.();
    if (error) out.destroy(error);
    else out.end();
  };
  child.stdout?.pipe(out, { end: false });
  child.once('close', (code) => {
    const ok = (options.okCodes ?? [0]).includes(code ?? -1);
    void finish(ok ? null : new Error(`${argv[0]} exited ${code}: ${stderr.trim()}`));
  });
  // A client that goes away stops the work.
  out.once('close', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await once(child, 'spawn');
  return out;
}
