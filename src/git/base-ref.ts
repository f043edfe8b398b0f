// The commit a working tree is compared against: the caller's `ref`, or the base OpenHands picks for
// *showing* what a conversation changed (its "display" policy), computed from local refs only —
// never a network call.
import { GitError } from './errors.js';
import { EMPTY_TREE, revParse, runGit } from './run.js';

/** A ref a client may pass: no option look-alike, no whitespace or control characters, bounded. */
const REF_PATTERN = /^(?!-)[!-~\u00a0-\uffff]{1,255}$/;

export async function baseRef(repo: string, ref: string | undefined): Promise<string> {
  if (ref !== undefined) return explicitRef(repo, ref);
  const any = await runGit(repo, ['rev-list', '-n', '1', '--all']);
  if (!any.ok || any.stdout.length === 0) return EMPTY_TREE;
  return displayBase(repo);
}

async function explicitRef(repo: string, ref: string): Promise<string> {
  if (!REF_PATTERN.test(ref)) throw new GitError('bad_input', `Invalid ref: ${JSON.stringify(ref)}`);
  const sha = await revParse(repo, `${ref}^{commit}`);
  if (sha) return sha;
  // HEAD on an unborn branch: everything in the tree is new, not an error.
  if (ref === 'HEAD') return EMPTY_TREE;
  throw new GitError('bad_input', `Unknown ref: ${ref}`);
}

async function currentBranch(repo: string): Promise<string | null> {
  const out = await runGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const name = out.stdout.toString('utf8').trim();
  return out.ok && name ? name : null;
}

async function mergeBase(repo: string, a: string, b: string): Promise<string | null> {
  const out = await runGit(repo, ['merge-base', a, b]);
  const sha = out.stdout.toString('utf8').trim();
  return out.ok && sha ? sha : null;
}

async function hasTrackedChanges(repo: string): Promise<boolean> {
  const out = await runGit(repo, ['status', '--porcelain', '--untracked-files=no']);
  // When git cannot tell, count the tree as dirty: the branch then keeps its own upstream as base.
  return !out.ok || out.stdout.length > 0;
}

async function remoteDefaultBranch(repo: string): Promise<string | null> {
  const out = await runGit(repo, ['rev-parse', '--abbrev-ref', 'origin/HEAD']);
  const name = out.stdout.toString('utf8').trim();
  return out.ok && name.startsWith('origin/') && name.length > 'origin/'.length
    ? name.slice('origin/'.length)
    : null;
}

/**
 * In order: the current branch's `origin/<branch>` (unless it is HEAD itself with a clean tree, which
 * would hide the branch's committed work), the fork point from origin's default branch, that branch's
 * tip, the fork point from a local main/master this branch grew from, then HEAD (git-status style).
 */
async function displayBase(repo: string): Promise<string> {
  const head = await revParse(repo, 'HEAD');
  const branch = await currentBranch(repo);
  if (branch) {
    const upstream = await revParse(repo, `refs/remotes/origin/${branch}`);
    if (upstream && !(upstream === head && !(await hasTrackedChanges(repo)))) return upstream;
  }
  const defaultBranch = await remoteDefaultBranch(repo);
  if (defaultBranch) {
    const fork = await mergeBase(repo, 'HEAD', `refs/remotes/origin/${defaultBranch}`);
    if (fork) return fork;
    const tip = await revParse(repo, `refs/remotes/origin/${defaultBranch}`);
    if (tip) return tip;
  } else {
    for (const local of ['main', 'master']) {
      const tip = await revParse(repo, `refs/heads/${local}`);
      if (!tip) continue;
      if (local !== branch && (await mergeBase(repo, 'HEAD', tip)) === tip) return tip;
      break;
    }
  }
  return head ?? EMPTY_TREE;
}
