// Real git repositories for the git API tests, made with the system git in temp folders.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../support/server.js';

const IDENTITY = [
  '-c',
  'user.name=Test Author',
  '-c',
  'user.email=test@example.com',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'init.defaultBranch=main',
];

/** Runs git in `cwd` (a fixed identity, no signing) and answers its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8' }).trim();
}

export function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A new repository with `files` committed as its first commit (none: no commit at all). */
export function newRepo(files: Record<string, string> = {}): string {
  const repo = tempDir('agentd-git-');
  git(repo, 'init', '-q');
  for (const [path, text] of Object.entries(files)) write(repo, path, text);
  if (Object.keys(files).length > 0) {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
  }
  return repo;
}

export function commitAll(repo: string, message: string): string {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** A repository (`top.txt` committed) with another inside it, `inner/` (`kept.txt` committed). */
export function nestedRepos(): { outer: string; inner: string } {
  const outer = newRepo({ 'top.txt': 'top\n' });
  const inner = join(outer, 'inner');
  write(outer, 'inner/kept.txt', 'kept\n');
  git(inner, 'init', '-q');
  git(inner, 'add', '-A');
  git(inner, 'commit', '-q', '-m', 'inner first');
  return { outer, inner };
}
