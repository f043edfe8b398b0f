// Reading the text files agents are given (instructions, skills, sub-agent types) from folders agentd
// does not control: a workspace (a cloned repository), a plugin, an installed skill, the extensions
// repository. Such a folder may hold a link to any file the server can read (`AGENTS.md ->
// /proc/self/environ`, `SKILL.md -> ~/.agentd/secret.key`), a FIFO, or a file of gigabytes: a file is
// read only when its real path is inside the folder, only when it is a regular file, and never more
// of it than the bound takes.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { insideOf } from './extension-source.js';

export interface TextFile {
  /** Its first `maxChars` UTF-16 units at most. */
  text: string;
  /** The file held more. */
  cut: boolean;
}

/**
 * The text of `path`, or null when it is missing, not a regular file, or (with `within`) not inside
 * that folder once links are resolved. `within` null: the user's own folders, whose links are theirs.
 */
export function readTextFile(path: string, within: string | null, maxChars: number): TextFile | null {
  // Most files probed are missing: existsSync answers that without an exception and its stack.
  if (!existsSync(path)) return null;
  const real = within === null ? path : insideOf(within, path);
  if (real === null) return null;
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would wait for a writer (fstat refuses it below).
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    // A UTF-16 unit takes at most 3 bytes of UTF-8: this many bytes hold more than maxChars units
    // whenever the file has more.
    const limit = maxChars * 3 + 4;
    const buffer = Buffer.allocUnsafe(limit);
    let size = 0;
    for (let n = 1; n > 0 && size < limit; size += n) n = readSync(fd, buffer, size, limit - size, null);
    const text = buffer.toString('utf8', 0, size);
    return text.length > maxChars ? { text: text.slice(0, maxChars), cut: true } : { text, cut: false };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
