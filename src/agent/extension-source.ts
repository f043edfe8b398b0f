// Where an extension (a skill to install, a plugin to load) comes from, as OpenHands names it:
// `github:owner/repo`, a git URL, or a folder on this server; with a branch, tag or commit (`ref`) and
// the extension's folder in the repository (`repo_path`). A repository is cloned with the system git
// (`--` before the URL, a ref that cannot be an option: a client's words are never git's options).
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, relative, resolve } from 'node:path';
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

const fail = (message: string): never => {
  throw new SourceFetchError(message);
};

/** A ref a client names: never an option git would read as one. */
const REF = /^[\w][\w./-]{0,199}$/;

function parse(source: string): { kind: 'git'; url: string; name: string } | { kind: 'local'; path: string } {
  const text = source.trim();
  const github = /^github:([\w.-]+)\/([\w.-]+)$/.exec(text);
  if (github)
    return { kind: 'git', url: `https://github.com/${github[1]}/${github[2]}.git`, name: github[2]! };
  if (text.startsWith('github:')) fail(`Invalid GitHub shorthand: ${text} (expected github:owner/repo)`);
  if (/^(https?|ssh|git|file):\/\//.test(text) || /^[\w.-]+@[\w.-]+:/.test(text))
    return { kind: 'git', url: text, name: basename(text.replace(/\/+$/, '')).replace(/\.git$/, '') };
  if (text.startsWith('/') || text.startsWith('~') || text.startsWith('.'))
    return { kind: 'local', path: resolve(text.replace(/^~(?=$|\/)/, homedir())) };
  return fail(`Unable to parse source: ${text} (expected github:owner/repo, a git URL, or a path)`);
}

/**
 * The extension's folder: a local one where it is; a repository cloned into `scratch` (which the
 * caller removes when done with it). SourceFetchError when it cannot be had.
 */
export async function fetchSource(spec: SourceSpec, scratch: string): Promise<FetchedSource> {
  const source = parse(spec.source);
  const ref = spec.ref ?? null;
  const repoPath = spec.repo_path ?? null;
  if (ref !== null && !REF.test(ref)) fail(`Not a branch, tag or commit: ${ref}`);
  if (source.kind === 'local') {
    if (repoPath !== null) fail('repo_path is for repositories: name the folder in `source`');
    if (ref !== null) fail('ref is for repositories: a folder is taken as it is');
    if (!statSync(source.path, { throwIfNoEntry: false })?.isDirectory()) fail(`No folder at ${source.path}`);
    return { root: source.path, resolvedRef: null, name: basename(source.path) };
  }
  const resolvedRef = await clone(source.url, ref, scratch);
  if (repoPath === null) return { root: scratch, resolvedRef, name: source.name };
  const root = resolve(scratch, repoPath.replace(/^\/+/, ''));
  // Resolved for real: a link in the repository must not lead out of it.
  const real = existsSync(root) ? realpathSync(root) : null;
  if (real === null || relative(realpathSync(scratch), real).startsWith('..'))
    fail(`Subdirectory '${repoPath}' not found in the repository`);
  return { root, resolvedRef, name: basename(root) };
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
