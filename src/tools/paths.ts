// Where a path given by the agent really points. Relative paths start at the working directory. The
// path is resolved link by link, as the kernel would (also through links whose target does not exist
// yet, so a new file lands where its link points), and refused when it ends outside the workspace —
// itself resolved, since the workspace may sit below a link such as /tmp — unless the server allows
// paths outside the workspace. Checking the text alone let `ln -s /etc etc` walk out.
import { type Dirent, lstatSync, readlinkSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolContext, ToolOptions } from './types.js';

export class PathError extends Error {}

/** A path the agent named: as it named it (absolute; what observations show) and where it really is. */
export interface ResolvedPath {
  path: string;
  real: string;
}

/** As many links as Linux follows before ELOOP. */
const MAX_LINKS = 40;

/**
 * The path with every symbolic link resolved. The part that does not exist (a file about to be
 * created, its new folders) is appended to the real path of what does; a dangling link counts as
 * the path it points to.
 */
export function realPath(path: string): string {
  let pending = resolve(path).split(sep).filter(Boolean);
  let current: string = sep;
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === '.') continue;
    // `current` has no links in it, so its parent is its textual parent.
    const next = name === '..' ? resolve(current, '..') : join(current, name);
    const stat = existing(next);
    if (!stat) return join(next, ...pending);
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new PathError(`Too many levels of symbolic links in ${path}.`);
      const target = readlinkSync(next);
      pending = [...target.split(sep).filter(Boolean), ...pending];
      if (isAbsolute(target)) current = sep;
      continue;
    }
    current = next;
  }
  return current;
}

function existing(path: string): import('node:fs').Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing entry, or one below a file: nothing is there yet.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The workspace's own real path. */
export function workspaceRoot(ctx: Pick<ToolContext, 'workingDir'>): string {
  return realPath(ctx.workingDir);
}

/** Whether a real path is the workspace root or below it. */
export function isInside(real: string, root: string): boolean {
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Resolves what the agent named and refuses it when it really lies outside the workspace. */
export function resolveInWorkspace(
  path: string,
  ctx: Pick<ToolContext, 'workingDir'>,
  options: ToolOptions,
): ResolvedPath {
  const named = isAbsolute(path) ? resolve(path) : resolve(ctx.workingDir, path);
  const real = realPath(named);
  if (options.allowPathsOutsideWorkspace) return { path: named, real };
  const root = workspaceRoot(ctx);
  if (isInside(real, root)) return { path: named, real };
  const lexicallyInside = isInside(named, resolve(ctx.workingDir)) || isInside(named, root);
  throw new PathError(
    lexicallyInside
      ? `Path ${path} leads through a symbolic link to ${real}, outside the workspace ${ctx.workingDir}; use a path inside it.`
      : `Path ${path} is outside the workspace ${ctx.workingDir}; use a path inside it.`,
  );
}

/**
 * Where a symbolic link met during a walk points, when a tool may show or follow it: inside the
 * workspace, or anywhere when the server allows it. Null for a link that leaves or dangles.
 */
export function linkTarget(link: string, root: string, options: ToolOptions): string | null {
  let real: string;
  try {
    real = realPath(link);
  } catch {
    return null;
  }
  if (!existing(real)) return null;
  return options.allowPathsOutsideWorkspace || isInside(real, root) ? real : null;
}

/** Entries a folder listing shows at most: file_editor's view and list_directory. */
export const MAX_ENTRIES = 500;

/** A folder's entries in byte order of their names, as both listings show them. */
export const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The status of what a link met in a listing points to (linkTarget), or null where it may not be shown. */
export async function linkedStat(link: string, root: string, options: ToolOptions): Promise<Stats | null> {
  const target = linkTarget(link, root, options);
  return target ? stat(target).catch(() => null) : null;
}
