// file_editor's view of a folder: two levels of it, like `find -maxdepth 2`, at most MAX_ENTRIES
// lines. Folders are read asynchronously and the walk stops reading at the bound: a synchronous,
// unbounded walk of a folder with 150k subfolders blocked the event loop 4 s and made 3.9M characters.
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { byName, linkedStat, MAX_ENTRIES, type ResolvedPath } from '../paths.js';
import type { ToolOptions } from '../types.js';

/**
 * Symbolic links are listed (a folder one that stays in the workspace with its `/`) but never
 * descended into, so a link cannot lead the listing out. Past MAX_ENTRIES, the rest of the folders
 * already read is counted, not shown, and no further folder is read.
 */
export async function listDirectory(
  at: ResolvedPath,
  workspace: string,
  options: ToolOptions,
): Promise<string> {
  const root = at.path;
  const lines: string[] = [];
  let hidden = 0;
  let more = 0;
  const shown = (real: string) => join(root, relative(at.real, real));
  const walk = async (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = (await readdir(dir, { withFileTypes: true })).sort(byName);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) {
        hidden++;
        continue;
      }
      if (lines.length >= MAX_ENTRIES) {
        more++;
        continue;
      }
      const full = join(dir, entry.name);
      const isDir = entry.isSymbolicLink()
        ? ((await linkedStat(full, workspace, options))?.isDirectory() ?? false)
        : entry.isDirectory();
      lines.push(isDir ? `${shown(full)}/` : shown(full));
      if (isDir && !entry.isSymbolicLink() && depth < 2) await walk(full, depth + 1);
    }
  };
  await walk(at.real, 1);
  let text = `Here's the files and directories up to 2 levels deep in ${root}, excluding hidden items:\n${lines.join('\n')}`;
  if (more > 0)
    text += `\n… ${more} more entries not shown, nor what is in the folders among them. View a subfolder, or use \`ls\` or \`find\` in the terminal, to see them.`;
  if (hidden > 0)
    text += `\n\n${hidden} hidden files/directories in this directory are excluded. You can use 'ls -la ${root}' to see them.`;
  return text;
}
