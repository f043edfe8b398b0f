// Where an extension (a skill to install, a plugin to load) comes from, as OpenHands names it:
// `github:owner/repo`, a git URL, or a folder on this server; with a branch, tag or commit (`ref`) and
// the extension's folder in the repository (`repo_path`). A repository is cloned with the system git
// (`--` before the URL, a ref that cannot be an option: a client's words are never git's options).
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runGit } from '../git/index.js';

export interface SourceSpec {
  source: string;
  ref?: string | null;
  repo_path?: string | null;
}

export interface FetchedSource {
  /** The extension's folder. */
  root: string;
  /** The commit cloned; null for a local folder. */
  resolvedRef: string | null;
  /** The folder's name (the repository's, or the repo_path's last part): a name when none is given. */
  name: string;
}

/** The source cannot be fetched (OpenHands answers these with a 400). */
export class SourceFetchError extends Error {
  override name = 'SourceFetchError';
}

/** What was fetched is no extension agentd can take: no SKILL.md, a bad manifest, too large (a 422). */
export class InvalidExtensionError extends Error {
  override name = 'InvalidExtensionError';
}

/** Most an extension's folder may hold: instructions, settings and small scripts, not projects. */
export const MAX_EXTENSION_FILES = 2_000;
export const MAX_EXTENSION_BYTES = 20 * 1024 * 1024;

const fail = (message: string): never => {
  throw new SourceFetchError(message);
};

/** A ref a client names: never an option git would read as one. */
const REF = /^[\w][\w./-]{0,199}$/;

type ParsedSource =
  | { kind: 'git'; url: string; name: string; ref?: string; path?: string }
  | { kind: 'local'; path: string };

function parse(source: string): ParsedSource {
  const text = source.trim();
  // OpenHands' marketplace form too: github:owner/repo@ref/path (the ref and path optional).
  const github = /^github:([\w.-]+)\/([\w.-]+?)(?:@([\w.-]+))?(?:\/(.+))?$/.exec(text);
  if (github) {
    const [, owner, repo, ref, path] = github;
    return {
      kind: 'git',
      url: `https://github.com/${owner}/${repo}.git`,
      name: repo!,
      ...(ref ? { ref } : {}),
      ...(path ? { path } : {}),
    };
  }
  if (text.startsWith('github:')) fail(`Invalid GitHub shorthand: ${text} (expected github:owner/repo)`);
  if (/^(https?|ssh|git|file):\/\//.test(text) || /^[\w.-]+@[\w.-]+:/.test(text))
    return { kind: 'git', url: text, name: basename(text.replace(/\/+$/, '')).replace(/\.git$/, '') };
  if (text.startsWith('/') || text.startsWith('~') || text.startsWith('.'))
    return { kind: 'local', path: resolve(text.replace(/^~(?=$|\/)/, homedir())) };
  return fail(`Unable to parse source: ${text} (expected github:owner/repo, a git URL, or a path)`);
}

/**
 * Where `source` is, as git fetches it: a repository's URL, or a folder's absolute path (`local`);
 * SourceFetchError when it is neither, or names a ref or folder in it.
 */
export function repositoryLocation(source: string): { location: string; local: boolean } {
  const parsed = parse(source);
  if (parsed.kind === 'local') return { location: parsed.path, local: true };
  if (parsed.ref || parsed.path) fail(`Name the repository alone, not a ref or folder in it: ${source}`);
  return { location: parsed.url, local: false };
}

/**
 * The extension's folder: a local one where it is; a repository cloned into `scratch` (which the
 * caller removes when done with it). SourceFetchError when it cannot be had.
 */
export async function fetchSource(spec: SourceSpec, scratch: string): Promise<FetchedSource> {
  const source = parse(spec.source);
  const inline: { ref?: string; path?: string } = source.kind === 'git' ? source : {};
  if ((inline.ref && spec.ref) || (inline.path && spec.repo_path))
    fail('The ref and folder are given in `source` (github:owner/repo@ref/path): not again beside it');
  const ref = spec.ref ?? inline.ref ?? null;
  const repoPath = spec.repo_path ?? inline.path ?? null;
  if (ref !== null && !REF.test(ref)) fail(`Not a branch, tag or commit: ${ref}`);
  if (source.kind === 'local') {
    if (repoPath !== null) fail('repo_path is for repositories: name the folder in `source`');
    if (ref !== null) fail('ref is for repositories: a folder is taken as it is');
    if (!statSync(source.path, { throwIfNoEntry: false })?.isDirectory()) fail(`No folder at ${source.path}`);
    return { root: source.path, resolvedRef: null, name: basename(source.path) };
  }
  const resolvedRef = await clone(source.url, ref, scratch);
  if (repoPath === null) return { root: scratch, resolvedRef, name: source.name };
  const root = insideOf(scratch, repoPath.replace(/^\/+/, ''));
  if (root === null) fail(`Subdirectory '${repoPath}' not found in the repository`);
  return { root: root as string, resolvedRef, name: basename(root as string) };
}

/**
 * `path` under `root`, resolved for real (links included: one in a repository must not lead out of
 * it); null when it leads out or is not there.
 */
export function insideOf(root: string, path: string): string | null {
  try {
    const real = realpathSync(resolve(root, path));
    const inside = relative(realpathSync(root), real);
    return inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? null : real;
  } catch {
    return null;
  }
}

/** Clones `url` into `into` (at `ref` when given); answers the commit it holds. */
async function clone(url: string, ref: string | null, into: string): Promise<string> {
  // `--` first: a source is the client's and must never be read as an option (`--upload-pack=…`).
  const cloned = await runGit(tmpdir(), ['clone', '--quiet', '--no-recurse-submodules', '--', url, into]);
  if (!cloned.ok) fail(`Cannot fetch ${url}: ${cloned.error}`);
  if (ref !== null) {
    const checkout = await runGit(into, ['checkout', '--quiet', '--detach', ref, '--']);
    if (!checkout.ok) fail(`No branch, tag or commit '${ref}' in ${url}: ${checkout.error}`);
  }
  const head = await runGit(into, ['rev-parse', 'HEAD']);
  return head.stdout.toString('utf8').trim();
}

/** The first symbolic link under `dir` (relative to it) whose target is not inside it; null when none. */
function linkOutside(dir: string): string | null {
  const walk = (at: string): string | null => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isSymbolicLink() && insideOf(dir, path) === null) return relative(dir, path);
      if (entry.isDirectory()) {
        const found = walk(path);
        if (found !== null) return found;
      }
    }
    return null;
  };
  return walk(dir);
}

/**
 * Copies an extension's folder (not its .git) in place of `target`, whole or not at all; an
 * InvalidExtensionError past MAX_EXTENSION_FILES or MAX_EXTENSION_BYTES. With `replace` false, a
 * `target` already there (another start copied the same commit first) is kept as it is.
 */
export function copyExtension(root: string, target: string, replace = true): void {
  let files = 0;
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        files += 1;
        bytes += statSync(path).size;
      }
      if (files > MAX_EXTENSION_FILES || bytes > MAX_EXTENSION_BYTES)
        throw new InvalidExtensionError(
          `An extension holds at most ${MAX_EXTENSION_FILES} files and ${MAX_EXTENSION_BYTES / 1024 / 1024} MB`,
        );
    }
  };
  walk(root);
  const staged = `${target}.${randomUUID()}.partial`;
  mkdirSync(join(target, '..'), { recursive: true });
  // Symbolic links are copied as links, never followed; one that resolves outside the copy (or to
  // nothing: `../../../.agentd/secret.key` may resolve only where the copy lands) refuses it all.
  cpSync(root, staged, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => !relative(root, src).split(sep).includes('.git'),
  });
  const outside = linkOutside(staged);
  if (outside !== null) {
    rmSync(staged, { recursive: true, force: true });
    throw new InvalidExtensionError(`An extension's links stay inside it: ${outside} points elsewhere`);
  }
  if (replace) rmSync(target, { recursive: true, force: true });
  try {
    renameSync(staged, target);
  } catch (error) {
    rmSync(staged, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (replace || (code !== 'ENOTEMPTY' && code !== 'EEXIST')) throw error;
  }
}
