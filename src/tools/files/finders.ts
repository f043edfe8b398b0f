// How glob and grep find files below a search root (a real path inside the workspace): the system
// ripgrep (Debian package `ripgrep`), which honours .gitignore, else a plain walk. Neither follows a
// symbolic link below the root — ripgrep does not by default, `--no-config` keeps a RIPGREP_CONFIG_PATH
// from turning `--follow` on, and the walk skips links — so no link can lead a search out of the
// workspace. Both answer paths relative to the root.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readNoFollow } from './atomic.js';
import { ToolInputError } from './common.js';

export interface FileFinder {
  readonly name: 'ripgrep' | 'walk';
  /** Files whose path below the root matches the glob `pattern`. */
  glob(root: string, pattern: string): Promise<string[]>;
  /** Files whose content matches `pattern` (already checked as a RegExp), optionally only `include`d names. */
  grep(root: string, pattern: string, include?: string): Promise<string[]>;
}

/** Folders no search goes into. */
export const SKIPPED = new Set(['.git', 'node_modules']);
/** The walk does not read files bigger than this for grep (ripgrep has its own binary detection). */
const MAX_GREP_BYTES = 10 * 1024 * 1024;

let systemRipgrep: string | null | undefined;

/** The `rg` on PATH, looked up once; null when there is none. */
function findRipgrep(): string | null {
  if (systemRipgrep === undefined) {
    systemRipgrep = null;
    for (const dir of (process.env.PATH ?? '').split(':')) {
      if (dir && existsSync(join(dir, 'rg'))) {
        systemRipgrep = join(dir, 'rg');
        break;
      }
    }
  }
  return systemRipgrep;
}

/** The system ripgrep when there is one, else the walk. */
export function defaultFinder(): FileFinder {
  const bin = findRipgrep();
  return bin ? ripgrepFinder(bin) : walkFinder;
}

function run(
  bin: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 2) : 0, stdout, stderr });
    });
  });
}

/** ripgrep prints `./a/b` for the root `.`. */
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => (f.startsWith('./') ? f.slice(2) : f));

export function ripgrepFinder(bin: string): FileFinder {
  const base = ['--no-config', '--hidden', '--glob', '!.git'];
  return {
    name: 'ripgrep',
    async glob(root, pattern) {
      const result = await run(bin, [...base, '--files', '--glob', pattern, '.'], root);
      if (result.code === 2) throw new ToolInputError(`Invalid glob pattern: ${result.stderr.trim()}`);
      return lines(result.stdout);
    },
    async grep(root, pattern, include) {
      const args = [
        ...base,
        '--files-with-matches',
        ...(include ? ['--glob', include] : []),
        '--regexp',
        pattern,
        '.',
      ];
      const result = await run(bin, args, root);
      if (result.code === 2) throw new ToolInputError(`Invalid regex pattern: ${result.stderr.trim()}`);
      return lines(result.stdout);
    },
  };
}

/** Every regular file below root, relative to it; links and the SKIPPED folders are left out. */
export function walkFiles(root: string, dir = root, out: string[] = []): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (SKIPPED.has(e.name)) continue;
    const full = join(dir, e.name);
    // A Dirent describes the entry itself (lstat), so a link is neither a directory nor a file here.
    if (e.isDirectory()) walkFiles(root, full, out);
    else if (e.isFile()) out.push(relative(root, full));
  }
  return out;
}

export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** A glob without a folder matches the name at any depth, as ripgrep's does. */
const anyDepth = (pattern: string) => globToRegExp(pattern.includes('/') ? pattern : `**/${pattern}`);

function contentMatches(file: string, regex: RegExp): boolean {
  try {
    const buffer = readNoFollow(file, MAX_GREP_BYTES, () => new Error('too large'));
    return regex.test(buffer.toString('utf8'));
  } catch {
    return false; // unreadable, too large, or swapped for a link since the walk: not a match
  }
}

export const walkFinder: FileFinder = {
  name: 'walk',
  async glob(root, pattern) {
    const re = anyDepth(pattern);
    return walkFiles(root).filter((f) => re.test(f));
  },
  async grep(root, pattern, include) {
    const regex = new RegExp(pattern);
    const only = include ? anyDepth(include) : null;
    return walkFiles(root).filter((f) => (!only || only.test(f)) && contentMatches(join(root, f), regex));
  },
};
