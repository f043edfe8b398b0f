// Runs the system git: argument lists only (execFile, no shell), a timeout, a cap on what it may
// print, and settings that keep a repository's own config from running programs on a read
// (fsmonitor, external diff drivers, pagers, clean/smudge filters) or from changing the output we
// parse. A repository written by code in a sandbox must not run that code here when it is read.
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { GitError } from './errors.js';

/** How long one git command may run. */
export const GIT_TIMEOUT_MS = 30_000;
/** The most one git command may print (a change list of ~200k paths). */
export const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * Options every `git diff` here takes: the repository's own diff programs (`diff.external`, a driver's
 * `command`, its `textconv`) are commands a sandbox may have written into its config or attributes.
 */
export const NO_DIFF_PROGRAMS = ['--no-ext-diff', '--no-textconv'] as const;

/** The tree with nothing in it: the base of a repository without commits, and a root commit's parent. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const FIXED_CONFIG = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.quotepath=off',
  '-c',
  'color.ui=false',
  '-c',
  'log.showSignature=false',
];

/**
 * `-c` settings that turn off every filter driver the repository's config names (`filter.<x>.clean`,
 * `.smudge`, `.process`: commands git runs on a diff, an add or a checkout); an empty command is none.
 * Reading the config runs nothing. git 2.39 (Debian 12) has no `--attr-source` to ignore the
 * attributes instead. A filtered file (Git LFS's) is then compared as it is stored.
 */
async function filtersOff(cwd: string): Promise<string[]> {
  const listed = await new Promise<string>((resolve) =>
    execFile(
      'git',
      [...FIXED_CONFIG, 'config', '--name-only', '--get-regexp', '^filter\\.'],
      { cwd, env: gitEnv(), timeout: GIT_TIMEOUT_MS, maxBuffer: 1024 * 1024, windowsHide: true },
      (_error, stdout) => resolve(String(stdout ?? '')),
    ),
  );
  const drivers = new Set(
    listed
      .split('\n')
      .map((name) => /^filter\.(.+)\.[^.]+$/.exec(name.trim())?.[1])
      .filter((driver): driver is string => driver !== undefined),
  );
  return [...drivers].flatMap((d) =>
    ['clean=', 'smudge=', 'process=', 'required=false'].flatMap((v) => ['-c', `filter.${d}.${v}`]),
  );
}

/** Within `oneReading`: the filter settings read so far, by folder. */
const readings = new AsyncLocalStorage<Map<string, Promise<string[]>>>();

/**
 * Runs `work` (one request's git commands) reading each folder's filter drivers once, for all of its
 * commands: read before every command, they doubled the git processes of every route. Never kept past
 * `work`: code in a sandbox may add a filter between two requests, so each request reads afresh.
 */
export function oneReading<T>(work: () => Promise<T>): Promise<T> {
  return readings.getStore() ? work() : readings.run(new Map(), work);
}

/** The settings every git command here runs with in `cwd` (see the header). */
export async function safeGitArgs(cwd: string): Promise<string[]> {
  const read = readings.getStore();
  let filters = read?.get(cwd);
  if (!filters) {
    filters = filtersOff(cwd);
    read?.set(cwd, filters);
  }
  return [...FIXED_CONFIG, ...(await filters)];
}

/** The server's environment, without what would point git at another repository, and never prompting. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    // ssh must not ask either (a host key, a passphrase): with no terminal it would wait out the timeout.
    GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
  };
  for (const name of [
    'GIT_DIR',
    'GIT_WORK_TREE',
    'GIT_INDEX_FILE',
    'GIT_OBJECT_DIRECTORY',
    'GIT_ALTERNATE_OBJECT_DIRECTORIES',
    'GIT_COMMON_DIR',
    'GIT_NAMESPACE',
  ])
    delete env[name];
  return env;
}

export interface GitOutput {
  ok: boolean;
  stdout: Buffer;
  /** git's error message: its first `fatal:` / `error:` line on stderr, else the first line, trimmed. */
  error: string;
}

/**
 * Runs `git <args>` in `cwd`. A non-zero exit is not thrown: callers probe with git (does this ref
 * resolve?) and decide. A timeout, an output over `maxBytes` or a missing git are thrown as GitError.
 */
export async function runGit(
  cwd: string,
  args: readonly string[],
  maxBytes = MAX_GIT_OUTPUT_BYTES,
): Promise<GitOutput> {
  const safe = await safeGitArgs(cwd);
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...safe, ...args],
      {
        cwd,
        env: gitEnv(),
        encoding: 'buffer',
        maxBuffer: maxBytes,
        timeout: GIT_TIMEOUT_MS,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        // git's own error line, not the progress it may print before it (`Preparing worktree …`).
        const lines = stderr.toString('utf8').trim().split('\n');
        const message = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? '';
        if (!error) return resolve({ ok: true, stdout, error: '' });
        const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        if (e.code === 'ENOENT')
          return reject(new GitError('unavailable', 'git is not installed on this server'));
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return reject(
            new GitError('too_large', `git printed more than ${maxBytes} bytes (git ${args[0]})`),
          );
        if (e.killed)
          return reject(new GitError('failed', `git ${args[0]} timed out after ${GIT_TIMEOUT_MS / 1000} s`));
        if (typeof e.code === 'number') return resolve({ ok: false, stdout, error: message });
        reject(new GitError('failed', `git ${args[0]} failed: ${e.message}`));
      },
    );
  });
}

/** Runs git and answers its stdout as text, or throws GitError('failed') with git's message. */
export async function gitText(cwd: string, args: readonly string[], maxBytes?: number): Promise<string> {
  const out = await runGit(cwd, args, maxBytes);
  if (!out.ok) throw new GitError('failed', out.error || `git ${args[0]} failed`);
  return out.stdout.toString('utf8');
}

/** The commit `rev` names (`git rev-parse --verify`), or null when it names none. */
export async function revParse(cwd: string, rev: string): Promise<string | null> {
  const out = await runGit(cwd, ['rev-parse', '--verify', '--quiet', rev]);
  const sha = out.stdout.toString('utf8').trim();
  return out.ok && sha ? sha : null;
}
