// list_directory, glob and grep. glob and grep use ripgrep (the system `rg`, else the one the
// @vscode/ripgrep package ships), which honours .gitignore; a plain walk is the fallback.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import type { Static } from 'typebox';
import { GlobAction, GrepAction, ListDirectoryAction } from '../../events/index.js';
import { resolveInWorkspace } from '../paths.js';
import type { Tool, ToolOptions } from '../types.js';
import { fileTool, ToolInputError } from './common.js';

const MAX_RESULTS = 100;
const MAX_ENTRIES = 500;
const SKIPPED = new Set(['.git', 'node_modules']);

let rg: string | null | undefined;

/** The ripgrep binary: the system one first, then the packaged one; null when there is none. */
function ripgrep(): string | null {
  if (rg !== undefined) return rg;
  rg = null;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'rg'))) {
      rg = join(dir, 'rg');
      return rg;
    }
  }
  try {
    const packaged = (createRequire(import.meta.url)('@vscode/ripgrep') as { rgPath: string }).rgPath;
    if (existsSync(packaged)) rg = packaged;
  } catch {
    // no packaged ripgrep: the fallback walk is used
  }
  return rg;
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

/** Every file below root, skipping .git and node_modules (the fallback when ripgrep is missing). */
function walk(root: string, out: string[] = []): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    if (SKIPPED.has(e.name)) continue;
    const full = join(root, e.name);
    if (e.isDirectory()) walk(full, out);
    else if (e.isFile()) out.push(full);
  }
  return out;
}

/** Newest first, at most MAX_RESULTS. */
function byMtime(files: string[]): { files: string[]; truncated: boolean } {
  const dated = files.map((f) => ({ f, t: statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0 }));
  dated.sort((a, b) => b.t - a.t || a.f.localeCompare(b.f));
  return { files: dated.slice(0, MAX_RESULTS).map((d) => d.f), truncated: dated.length > MAX_RESULTS };
}

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function globTool(options: ToolOptions = {}): Tool<Static<typeof GlobAction>> {
  return fileTool({
    name: 'glob',
    kind: 'GlobTool',
    actionKind: 'GlobAction',
    observationKind: 'GlobObservation',
    actionSchema: GlobAction,
    readOnly: true,
    description:
      'Find files by name pattern (e.g. `**/*.ts`, `src/*.py`) below `path` (default: the working directory), newest first, at most 100. Files ignored by .gitignore are left out.',
    errorMembers: (a) => ({ pattern: a.pattern, search_path: a.path ?? '' }),
    async run(action, ctx) {
      const root = resolveInWorkspace(action.path ?? ctx.workingDir, ctx, options);
      let found: string[];
      const bin = ripgrep();
      if (bin) {
        const result = await run(
          bin,
          ['--files', '--hidden', '--glob', '!.git', '--glob', action.pattern],
          root,
        );
        if (result.code === 2) throw new ToolInputError(`Invalid glob pattern: ${result.stderr.trim()}`);
        found = result.stdout
          .split('\n')
          .filter(Boolean)
          .map((f) => join(root, f));
      } else {
        const re = globToRegExp(action.pattern.includes('/') ? action.pattern : `**/${action.pattern}`);
        found = walk(root).filter((f) => re.test(relative(root, f)));
      }
      const { files, truncated } = byMtime(found);
      const text =
        files.length === 0
          ? `No files found matching pattern '${action.pattern}' in directory '${root}'`
          : `Found ${files.length} file(s) matching pattern '${action.pattern}' in '${root}':\n${files.join('\n')}` +
            (truncated
              ? '\n[Results truncated to first 100 files. Consider using a more specific pattern.]'
              : '');
      return { members: { files, pattern: action.pattern, search_path: root, truncated }, text };
    },
  });
}

export function grepTool(options: ToolOptions = {}): Tool<Static<typeof GrepAction>> {
  return fileTool({
    name: 'grep',
    kind: 'GrepTool',
    actionKind: 'GrepAction',
    observationKind: 'GrepObservation',
    actionSchema: GrepAction,
    readOnly: true,
    description:
      'Find the files whose content matches a regular expression, below `path` (default: the working directory), optionally only files matching `include` (e.g. `*.ts`). Returns file paths, newest first, at most 100.',
    errorMembers: (a) => ({ pattern: a.pattern, search_path: a.path ?? '' }),
    async run(action, ctx) {
      const root = resolveInWorkspace(action.path ?? ctx.workingDir, ctx, options);
      let regex: RegExp;
      try {
        regex = new RegExp(action.pattern);
      } catch (error) {
        throw new ToolInputError(`Invalid regex pattern: ${(error as Error).message}`);
      }
      let found: string[];
      const bin = ripgrep();
      if (bin) {
        const args = [
          '--files-with-matches',
          '--hidden',
          '--glob',
          '!.git',
          ...(action.include ? ['--glob', action.include] : []),
          '--regexp',
          action.pattern,
          '.',
        ];
        const result = await run(bin, args, root);
        if (result.code === 2) throw new ToolInputError(`Invalid regex pattern: ${result.stderr.trim()}`);
        found = result.stdout
          .split('\n')
          .filter(Boolean)
          .map((f) => join(root, f));
      } else {
        const include = action.include
          ? globToRegExp(action.include.includes('/') ? action.include : `**/${action.include}`)
          : null;
        found = walk(root).filter(
          (f) => (!include || include.test(relative(root, f))) && regex.test(readFileSync(f, 'utf8')),
        );
      }
      const { files, truncated } = byMtime(found);
      const text =
        files.length === 0
          ? `No files found containing pattern '${action.pattern}' in '${root}'`
          : `Found ${files.length} file(s) containing pattern '${action.pattern}' in '${root}':\n${files.join('\n')}` +
            (truncated
              ? '\n[Results truncated to first 100 files. Consider a more specific pattern or include.]'
              : '');
      return {
        members: {
          matches: files,
          pattern: action.pattern,
          search_path: root,
          ...(action.include ? { include_pattern: action.include } : {}),
          truncated,
        },
        text,
      };
    },
  });
}

export function listDirectoryTool(options: ToolOptions = {}): Tool<Static<typeof ListDirectoryAction>> {
  return fileTool({
    name: 'list_directory',
    kind: 'ListDirectoryTool',
    actionKind: 'ListDirectoryAction',
    observationKind: 'ListDirectoryObservation',
    actionSchema: ListDirectoryAction,
    readOnly: true,
    description:
      'List a directory (default: the working directory): names, sizes and modification times; `recursive` goes two levels deep. At most 500 entries.',
    async run(action, ctx) {
      const root = resolveInWorkspace(action.dir_path ?? '.', ctx, options);
      if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
        throw new ToolInputError(`Not a directory: ${root}`);
      const entries: {
        name: string;
        path: string;
        is_directory: boolean;
        size: number;
        modified_time: string;
      }[] = [];
      let total = 0;
      const maxDepth = action.recursive ? (action.depth ?? 2) : 1;
      const ignored = (action.ignore ?? []).map((p) => globToRegExp(p));
      const visit = (dir: string, depth: number) => {
        for (const name of readdirSync(dir).sort()) {
          if (ignored.some((re) => re.test(name))) continue;
          const full = join(dir, name);
          const stat = statSync(full, { throwIfNoEntry: false });
          if (!stat) continue;
          total++;
          if (entries.length < MAX_ENTRIES) {
            entries.push({
              name,
              path: full,
              is_directory: stat.isDirectory(),
              size: stat.size,
              modified_time: stat.mtime.toISOString(),
            });
          }
          if (stat.isDirectory() && depth < maxDepth && !SKIPPED.has(name)) visit(full, depth + 1);
        }
      };
      visit(root, 1);
      const lines = entries.map(
        (e) =>
          `${e.is_directory ? 'd' : '-'} ${String(e.size).padStart(10)}  ${relative(root, e.path)}${e.is_directory ? '/' : ''}`,
      );
      const truncated = total > entries.length;
      return {
        members: { dir_path: root, entries, total_count: total, is_truncated: truncated },
        text: `${root}:\n${lines.join('\n')}${truncated ? `\n[${total - entries.length} more entries not shown.]` : ''}`,
      };
    },
  });
}
