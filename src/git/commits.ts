// A repository's recent history: the commits reachable from HEAD, newest first (a Git host's
// "Commits" page), with whether more exist.
import { GitError } from './errors.js';
import { existingFolder, workTreeTop } from './paths.js';
import { gitText, revParse } from './run.js';
import type { GitCommit, GitCommitsPage } from './schemas.js';

export const MAX_COMMITS = 200;

// Fields split by 0x1f and commits by 0x1e: neither can appear in a name, a date or a subject.
const FORMAT = '%H%x1f%h%x1f%an%x1f%aI%x1f%s%x1e';

export async function gitCommits(path: string, limit = 50): Promise<GitCommitsPage> {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_COMMITS)
    throw new GitError('bad_input', `limit must be 1..${MAX_COMMITS}`);
  const folder = await existingFolder(path);
  await workTreeTop(folder);
  const head = await revParse(folder, 'HEAD');
  // An unborn branch has nothing to list (git log would fail).
  if (!head) return { commits: [], has_more: false };
  const output = await gitText(folder, [
    'log',
    '--no-show-signature',
    `--format=${FORMAT}`,
    '-n',
    String(limit + 1),
    head,
    '--',
  ]);
  const commits: GitCommit[] = [];
  for (const record of output.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\x1f');
    if (fields.length !== 5) continue;
    const [sha, short_sha, author, timestamp, subject] = fields as [string, string, string, string, string];
    commits.push({ sha, short_sha, subject, author, timestamp });
  }
  return { commits: commits.slice(0, limit), has_more: commits.length > limit };
}
