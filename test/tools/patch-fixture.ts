// A workspace for the apply_patch tests, and patches written line by line.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTools, type ToolOptions } from '../../src/tools/index.js';
import { tempDir } from '../support/server.js';
import { toolCaller, toolContext } from '../support/tools.js';

/** A workspace holding `files`, and apply_patch called in it. */
export function patchWorkspace(files: Record<string, string> = {}, options: ToolOptions = {}) {
  const ws = tempDir('agentd-patch-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), content);
  }
  return { ws, apply: patcher(ws, options), read: (path: string) => readFileSync(join(ws, path), 'utf8') };
}

/** apply_patch in the workspace `ws`. */
export function patcher(ws: string, options: ToolOptions = {}) {
  const call = toolCaller(createTools(['apply_patch'], options), toolContext(ws));
  return (patch: string) => call('apply_patch', { patch });
}

export const patchOf = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
