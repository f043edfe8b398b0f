// One file's two sides for a diff view: `original` (the file at the base, or at a commit's parent)
// and `modified` (the file on disk, or at the commit). The client computes the diff itself.
import { readFile, stat } from 'node:fs/promises';
import { baseRef } from './base-ref.js';
import { parentOf, resolveCommit } from './changes.js';
import { GitError } from './errors.js';
import { realFilePath, repoRelative, workTreeTop } from './paths.js';
import { runGit } from './run.js';
import type { GitDiff } from './schemas.js';

/** The largest file either side may be (OpenHands' cap). */
export const MAX_DIFF_FILE_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text as both sides are compared: UTF-8 with line breaks as `\n` and no final newline (OpenHands
 * joins the file's lines); a binary or non-UTF-8 file reads as "".
 */
function asText(bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return '';
  }
  return text.replace(/\r\n?/g, '\n').replace(/\n$/, '');
}

const tooLarge = (path: string, size: number) =>
  new GitError(
    'too_large',
    `File too large for git diff: ${path} is ${size} bytes (max ${MAX_DIFF_FILE_BYTES})`,
  );

/** The blob at `rev:rel`, or null when that side has no such file. */
async function blobAt(repo: string, rev: string, rel: string): Promise<Buffer | null> {
  const spec = `${rev}:${rel}`;
  const type = await runGit(repo, ['cat-file', '-t', spec]);
  if (!type.ok || type.stdout.toString('utf8').trim() !== 'blob') return null;
  const size = Number((await runGit(repo, ['cat-file', '-s', spec])).stdout.toString('utf8').trim());
  if (size > MAX_DIFF_FILE_BYTES) throw tooLarge(rel, size);
  const out = await runGit(repo, ['cat-file', 'blob', spec], MAX_DIFF_FILE_BYTES + 1);
  return out.ok ? out.stdout : null;
}

/** The work tree holding the (possibly deleted) file at `path`, and the file's path in it. */
async function locate(path: string, exists: boolean): Promise<{ top: string; rel: string }> {
  const { folder, real } = await realFilePath(path);
  try {
    const top = await workTreeTop(folder);
    return { top, rel: repoRelative(top, real) };
  } catch (error) {
    // A file that is not there and in no repository is simply not there.
    if (!exists && error instanceof GitError && error.kind === 'not_a_repository')
      throw new GitError('not_found', `No such file: ${path}`);
    throw error;
  }
}

/**
 * The file at `path` on disk against the base (`ref`, default the display base). A file deleted
 * since the base answers `modified: ""`; a path neither on disk nor at the base is not_found.
 */
export async function gitDiff(path: string, ref?: string): Promise<GitDiff> {
  const info = await stat(path).catch(() => null);
  if (info && !info.isFile()) throw new GitError('bad_input', `Not a file: ${path}`);
  if (info && info.size > MAX_DIFF_FILE_BYTES) throw tooLarge(path, info.size);
  const { top, rel } = await locate(path, info !== null);
  const base = await baseRef(top, ref);
  const original = await blobAt(top, base, rel);
  if (!info) {
    if (original === null) throw new GitError('not_found', `No such file: ${path}`);
    return { modified: '', original: asText(original) };
  }
  const modified = await readFile(path);
  return { modified: asText(modified), original: original === null ? '' : asText(original) };
}

/** The file at `path` as commit `sha` changed it: both sides from git objects, so deleted files render. */
export async function commitFileDiff(path: string, sha: string): Promise<GitDiff> {
  const info = await stat(path).catch(() => null);
  if (info?.isDirectory()) throw new GitError('bad_input', `Not a file: ${path}`);
  const { top, rel } = await locate(path, info !== null);
  const full = await resolveCommit(top, sha);
  const original = await blobAt(top, await parentOf(top, full), rel);
  const modified = await blobAt(top, full, rel);
  if (original === null && modified === null)
    throw new GitError('not_found', `No such file in commit ${sha} or its parent: ${path}`);
  return { modified: modified ? asText(modified) : '', original: original ? asText(original) : '' };
}
