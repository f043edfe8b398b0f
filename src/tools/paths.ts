// Where a path given by the agent points. Relative paths start at the working directory; a path that
// leaves it is refused unless the server allows paths outside the workspace.
import { isAbsolute, relative, resolve } from 'node:path';
import type { ToolContext, ToolOptions } from './types.js';

export class PathError extends Error {}

export function resolveInWorkspace(path: string, ctx: ToolContext, options: ToolOptions): string {
  const full = isAbsolute(path) ? resolve(path) : resolve(ctx.workingDir, path);
  const rel = relative(ctx.workingDir, full);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  if (!inside && !options.allowPathsOutsideWorkspace) {
    throw new PathError(`Path ${path} is outside the workspace ${ctx.workingDir}; use a path inside it.`);
  }
  return full;
}
