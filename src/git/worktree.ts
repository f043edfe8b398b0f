// OpenHands' `worktree: true` for a conversation: when its working folder is inside a git repository,
// the conversation works in a git worktree of its own, on a branch `openhands/<conversation id>`, so
// conversations on one repository do not step on each other or on the user's checkout. The start
// point is chosen as OpenHands does, but from the refs already here (no `git fetch`: a start never
// waits on the network): `origin`'s default branch, else `main`, else `master`, else HEAD.
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { GitError } from './errors.js';
import { revParse, runGit } from './run.js';

export interface Worktree {
  /** The folder the conversation works in: the worktree, at the same place in it as the one asked for. */
  workingDir: string;
  /** The worktree's root, `<root>/<conversation id>/<repository name>`. */
  root: string;
  branch: string;
  /** The folder that was asked for, in the user's own checkout. */
  source: string;
  /** The repository the worktree belongs to (its main work tree). */
  repository: string;
}

async function startPoint(repo: string): Promise<string> {
  const remote = await runGit(repo, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']);
  const ref = remote.stdout.toString('utf8').trim();
  if (remote.ok && ref.startsWith('refs/remotes/origin/'))
    return `origin/${ref.slice('refs/remotes/origin/'.length)}`;
  for (const branch of ['main', 'master']) if (await revParse(repo, `refs/heads/${branch}`)) return branch;
  return 'HEAD';
}

/**
 * The conversation's worktree under `root`, or null when `folder` is in no repository (or in one
 * without a commit to start from): the conversation then works in the folder itself, as in OpenHands.
 */
export async function createWorktree(
  folder: string,
  conversationId: string,
  root: string,
): Promise<Worktree | null> {
  // Real paths on both sides: git answers the top level resolved, and the folder's place in the
  // worktree is its path relative to that (a link in the folder's path would put it elsewhere).
  const source = realpathSync(resolve(folder));
  const top = await runGit(source, ['rev-parse', '--show-toplevel']);
  if (!top.ok) return null;
  const repository = realpathSync(top.stdout.toString('utf8').trim());
  const from = await startPoint(repository);
  if (!(await revParse(repository, `${from}^{commit}`))) return null;
  const dir = join(root, conversationId.replaceAll('-', ''));
  const worktreeRoot = join(dir, basename(repository));
  const branch = `openhands/${conversationId}`;
  mkdirSync(dir, { recursive: true });
  // A conversation started again under the same id (a client's conversation_id) takes up its branch,
  // which a delete keeps; OpenHands deletes it, and with it the commits made there.
  const exists = await revParse(repository, `refs/heads/${branch}`);
  const added = await runGit(
    repository,
    exists
      ? ['worktree', 'add', worktreeRoot, branch]
      : ['worktree', 'add', '-b', branch, worktreeRoot, from],
  );
  if (!added.ok) throw new GitError('failed', `git worktree add failed: ${added.error}`);
  const workingDir = join(worktreeRoot, relative(repository, source));
  mkdirSync(workingDir, { recursive: true });
  return { workingDir, root: worktreeRoot, branch, source, repository };
}

/**
 * Removes a worktree. `discard`: also its changes and its branch (a start that failed made them);
 * else only a worktree with nothing uncommitted goes (its branch stays: the commits are the user's),
 * and false says it was kept.
 */
export async function removeWorktree(worktree: Worktree, discard: boolean): Promise<boolean> {
  const args = ['worktree', 'remove', ...(discard ? ['--force'] : []), worktree.root];
  const removed = await runGit(worktree.repository, args);
  if (!removed.ok) return false;
  if (discard) await runGit(worktree.repository, ['branch', '-D', worktree.branch]);
  rmSync(resolve(worktree.root, '..'), { recursive: true, force: true });
  return true;
}

/** What the agent is told about its worktree (OpenHands' words, in substance). */
export function worktreeGuidance(worktree: Worktree): string {
  return [
    'This conversation uses a dedicated git worktree.',
    `- Original workspace: ${worktree.source}`,
    `- Worktree root: ${worktree.root}`,
    `- Active workspace: ${worktree.workingDir}`,
    `- Branch: ${worktree.branch}`,
    'Do all file and git work inside this worktree, on this branch or a new, appropriately-named one, and do not switch back to the original workspace.',
  ].join('\n');
}
