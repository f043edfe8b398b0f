// list_directory, glob and grep. Their root is resolved to where it really is and must lie in the
// workspace (resolveInWorkspace); glob and grep find files with a FileFinder (ripgrep or a walk, see
// finders.ts), and list_directory lists symbolic links without following them out of the workspace.
import { type Dirent, lstatSync, statSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Static } from 'typebox';
import { GlobAction, GrepAction, ListDirectoryAction } from '../../events/index.js';
import { loopTurns } from '../../loop/index.js';
import {
  byName,
  linkedStat,
  MAX_ENTRIES,
  type ResolvedPath,
  resolveInWorkspace,
  workspaceRoot,
} from '../paths.js';
import type { Tool, ToolOptions } from '../types.js';
import { fileTool, ToolInputError } from './common.js';
import { defaultFinder, type FileFinder, globToRegExp, SKIPPED } from './finders.js';

const MAX_RESULTS = 100;

/**
 * Statuses read between two turns of the loop (~7 ms here): read all at once, 151k files held it
 * 0.5 s; read on libuv's threads instead, 60k took three times as long.
 */
const STATS_PER_TURN = 2_000;

/**
 * The regular files among what a finder answered (relative to the root), newest first, at most
 * MAX_RESULTS, named below the root as the agent named it. A link is dropped, even if a finder let
 * one through.
 */
async function newestFirst(
  root: ResolvedPath,
  found: string[],
): Promise<{ files: string[]; truncated: boolean }> {
  const dated: { f: string; t: number }[] = [];
  for (const [i, f] of found.entries()) {
    if (i > 0 && i % STATS_PER_TURN === 0) await loopTurns.turn('background');
    const stat = lstatSync(join(root.real, f), { throwIfNoEntry: false });
    if (stat?.isFile()) dated.push({ f, t: stat.mtimeMs });
  }
  dated.sort((a, b) => b.t - a.t || a.f.localeCompare(b.f));
  return {
    files: dated.slice(0, MAX_RESULTS).map((d) => join(root.path, d.f)),
    truncated: dated.length > MAX_RESULTS,
  };
}

export function globTool(
  options: ToolOptions = {},
  finder: () => FileFinder = defaultFinder,
): Tool<Static<typeof GlobAction>> {
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
      const at = resolveInWorkspace(action.path ?? ctx.workingDir, ctx, options);
      const root = at.path;
      searchable(at);
      const { files, truncated } = await newestFirst(at, await finder().glob(at.real, action.pattern));
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

export function grepTool(
  options: ToolOptions = {},
  finder: () => FileFinder = defaultFinder,
): Tool<Static<typeof GrepAction>> {
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
      const at = resolveInWorkspace(action.path ?? ctx.workingDir, ctx, options);
      const root = at.path;
      searchable(at);
      try {
        new RegExp(action.pattern);
      } catch (error) {
        throw new ToolInputError(`Invalid regex pattern: ${(error as Error).message}`);
      }
      const { files, truncated } = await newestFirst(
        at,
        await finder().grep(at.real, action.pattern, action.include ?? undefined),
      );
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
      const at = resolveInWorkspace(action.dir_path ?? '.', ctx, options);
      const root = at.path;
      searchable(at);
      const workspace = workspaceRoot(ctx);
      const entries: Entry[] = [];
      const links = new Set<string>();
      let total = 0;
      const maxDepth = action.recursive ? (action.depth ?? 2) : 1;
      const ignored = (action.ignore ?? []).map((p) => globToRegExp(p));
      // Walks the real folder; entries are named below the root as the agent named it. Past the
      // entries shown, it only counts: a folder's read gives each name's kind, and only a shown entry
      // or a link needs its status (read one by one in the loop, 300k entries held it 2 s).
      const visit = async (dir: string, depth: number): Promise<void> => {
        let names: Dirent[];
        try {
          names = (await readdir(dir, { withFileTypes: true })).sort(byName);
        } catch {
          return; // a folder we may not read lists as empty
        }
        for (const dirent of names) {
          const { name } = dirent;
          if (ignored.some((re) => re.test(name))) continue;
          const full = join(dir, name);
          total++;
          if (entries.length < MAX_ENTRIES) {
            const own = await lstat(full).catch(() => null);
            if (!own) {
              total--;
              continue;
            }
            const path = join(root, relative(at.real, full));
            if (own.isSymbolicLink()) links.add(path);
            // A link shows its target when that is in the workspace, else itself: nothing outside.
            const stat = own.isSymbolicLink() ? ((await linkedStat(full, workspace, options)) ?? own) : own;
            entries.push({
              name,
              path,
              is_directory: stat.isDirectory(),
              size: stat.size,
              modified_time: stat.mtime.toISOString(),
            });
          }
          // Like ripgrep and find, never into a link: no way out, no loops.
          if (dirent.isDirectory() && depth < maxDepth && !SKIPPED.has(name)) await visit(full, depth + 1);
        }
      };
      await visit(at.real, 1);
      const lines = entries.map(
        (e) =>
          `${links.has(e.path) ? 'l' : e.is_directory ? 'd' : '-'} ${String(e.size).padStart(10)}  ${relative(root, e.path)}${e.is_directory ? '/' : ''}`,
      );
      const truncated = total > entries.length;
      return {
        members: { dir_path: root, entries, total_count: total, is_truncated: truncated },
        text: `${root}:\n${lines.join('\n')}${truncated ? `\n[${total - entries.length} more entries not shown.]` : ''}`,
      };
    },
  });
}

type Entry = { name: string; path: string; is_directory: boolean; size: number; modified_time: string };

/** A search or listing root must be an existing folder. */
function searchable(at: ResolvedPath): void {
  const stat = statSync(at.real, { throwIfNoEntry: false });
  if (!stat) throw new ToolInputError(`Directory not found: ${at.path}`);
  if (!stat.isDirectory()) throw new ToolInputError(`Not a directory: ${at.path}`);
}
