// From the path a client sends to a folder or file on disk and the work tree that holds it.
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { GitError } from './errors.js';
import { runGit } from './run.js';

/** A path a client names: absolute, or relative to the server's working directory (as OpenHands). */
export function absolutePath(path: string): string {
  if (path.includes('\0')) throw new GitError('bad_input', 'A path cannot contain a NUL character');
  return isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path);
}

async function statOrNull(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ENAMETOOLONG') throw new GitError('bad_input', `Path too long: ${path}`);
    throw new GitError('bad_input', `Cannot read ${path}: ${code ?? 'error'}`);
  }
}

/** The folder at `path`, which must exist (404) and be a folder (400). Answers its real path. */
export async function existingFolder(path: string): Promise<string> {
  const info = await statOrNull(path);
  if (!info) throw new GitError('not_found', `No such folder: ${path}`);
  if (!info.isDirectory()) throw new GitError('bad_input', `Not a folder: ${path}`);
  return realpath(path);
}

/**
 * The real path of `path` when it exists; else the real path of its nearest existing folder plus the
 * rest (a file that was deleted, in folders that may be gone too). `folder` is that existing folder.
 */
export async function realFilePath(path: string): Promise<{ folder: string; real: string }> {
  if (await statOrNull(path)) return { folder: await realpath(dirname(path)), real: await realpath(path) };
  let dir = dirname(path);
  for (;;) {
    const info = await statOrNull(dir);
    if (info?.isDirectory()) {
      const folder = await realpath(dir);
      return { folder, real: join(folder, relative(dir, path)) };
    }
    const parent = dirname(dir);
    if (parent === dir) return { folder: dir, real: path };
    dir = parent;
  }
}

/**
 * The top of the work tree that holds `folder`. A folder in no repository, or inside a `.git`
 * folder, is GitError('not_a_repository'); another refusal (e.g. git's "dubious ownership") says why.
 */
export async function workTreeTop(folder: string): Promise<string> {
  const out = await runGit(folder, ['rev-parse', '--is-inside-work-tree', '--show-toplevel']);
  const [inside, top] = out.stdout.toString('utf8').split('\n');
  if (out.ok && inside === 'true' && top) return top;
  if (/not a git repository/i.test(out.error))
    throw new GitError('not_a_repository', `Not a git repository: ${folder}`);
  // Inside a .git folder or a bare repository: a repository, but no files to compare.
  if (out.ok || /work tree/i.test(out.error))
    throw new GitError(
      'not_a_repository',
      `Not a git work tree (a .git folder or a bare repository): ${folder}`,
    );
  throw new GitError('bad_input', `git refuses ${folder}: ${out.error}`);
}

/** `file` relative to `top`, with forward slashes, as git names it in `rev:path`. */
export function repoRelative(top: string, file: string): string {
  const rel = relative(top, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new GitError('bad_input', `Not a file in the repository at ${top}: ${file}`);
  return rel.split(sep).join('/');
}
