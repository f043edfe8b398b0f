// A workspace full of symbolic links, beside an "outside" folder that no tool may read or change,
// and a way to call every file tool on it. Shared by the symlink tests; the folders are tempDir()'s,
// removed after each test file.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { FileFinder } from '../../src/tools/files/finders.js';
import { globTool, grepTool } from '../../src/tools/files/search.js';
import { createTools, type Tool, type ToolOptions } from '../../src/tools/index.js';
import { tempDir } from '../support/server.js';
import { toolCaller, toolContext } from '../support/tools.js';

export { type Obs, text } from '../support/tools.js';

export const SECRET = 'SECRET outside the workspace\n';

/**
 * <base>/outside: secret.txt and deep/deeper.txt.
 * <base>/ws, the workspace: inner.txt, sub/a.txt and links —
 *   pw -> outside/secret.txt, outdir -> outside, gone -> outside/new.txt (dangling, leaves),
 *   infile -> inner.txt, indir -> sub, inabs -> <ws>/inner.txt (absolute), later -> sub/later.txt
 *   (dangling, stays), loop -> loop.
 */
export function linkedWorkspace() {
  const base = tempDir('agentd-links-');
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(outside, 'deep'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(outside, 'deep', 'deeper.txt'), SECRET);
  mkdirSync(join(ws, 'sub'), { recursive: true });
  writeFileSync(join(ws, 'inner.txt'), 'inner line\n');
  writeFileSync(join(ws, 'sub', 'a.txt'), 'alpha in sub\n');
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'pw'));
  symlinkSync('../outside', join(ws, 'outdir'));
  symlinkSync(join(outside, 'new.txt'), join(ws, 'gone'));
  symlinkSync('inner.txt', join(ws, 'infile'));
  symlinkSync('sub', join(ws, 'indir'));
  symlinkSync(join(ws, 'inner.txt'), join(ws, 'inabs'));
  symlinkSync('sub/later.txt', join(ws, 'later'));
  symlinkSync('loop', join(ws, 'loop'));
  return { base, ws, outside, before: snapshot(outside) };
}

/** Every entry below dir with its content (files), `dir` or its link target: to prove nothing changed. */
export function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stat = lstatSync(full);
    const key = prefix + name;
    if (stat.isSymbolicLink()) out[key] = `link:${readlinkSync(full)}`;
    else if (stat.isDirectory()) Object.assign(out, { [key]: 'dir' }, snapshot(full, `${key}/`));
    else out[key] = `${readFileSync(full, 'utf8')} mode:${stat.mode.toString(8)}`;
  }
  return out;
}

const NAMES = [
  'read_file',
  'write_file',
  'edit',
  'list_directory',
  'glob',
  'grep',
  'file_editor',
  'planning_file_editor',
];

/** Calls tools by name in the workspace; glob and grep use `finder` when given. */
export function toolsIn(workingDir: string, options: ToolOptions = {}, finder?: FileFinder) {
  const tools = createTools(NAMES, options).map((t) => {
    if (finder && t.name === 'glob') return globTool(options, () => finder) as Tool;
    if (finder && t.name === 'grep') return grepTool(options, () => finder) as Tool;
    return t;
  });
  return toolCaller(tools, toolContext(workingDir));
}
