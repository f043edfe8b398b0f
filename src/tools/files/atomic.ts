// Writing and reading a file that resolveInWorkspace has already resolved to its real path, without
// following a symbolic link that appears at that path afterwards.
//
// Writes go to a fresh temporary file beside the target (opened with O_EXCL, which never follows a
// link) and are renamed over it, so a crash never leaves half a file. rename() replaces a link at the
// target instead of writing through it, so even a link planted after the check cannot carry the
// write out of the workspace. A link the agent names on purpose still works: the path was resolved
// to the link's target before we got here, so the target is what gets replaced and the link stays.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PathError } from '../paths.js';

/**
 * Replaces (or creates) the file at `real`, a path with no symbolic links in it. `mode`: the new
 * file's permissions (a moved or restored file keeps its own); by default the replaced file's.
 */
export function writeAtomic(real: string, text: string, mode?: number): void {
  const dir = dirname(real);
  mkdirSync(dir, { recursive: true });
  // The folder was resolved before: if it is no longer where it was, a link was swapped in.
  if (realpathSync(dir) !== dir) throw new PathError(`The folder ${dir} changed while writing; try again.`);
  const previous = lstatSync(real, { throwIfNoEntry: false });
  const tmp = join(dir, `.${basename(real)}.agentd-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx');
  try {
    // An edit keeps the file's permissions (an executable script stays executable).
    if (mode !== undefined) fchmodSync(fd, mode & 0o7777);
    else if (previous?.isFile()) fchmodSync(fd, previous.mode & 0o7777);
    writeFileSync(fd, text);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, real);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * The bytes of the regular file at `real`, opened with O_NOFOLLOW (a link swapped in after the check
 * is refused, not followed) and O_NONBLOCK (a FIFO cannot hang the tool). `tooLarge` names the error
 * for a file over `maxBytes`.
 */
export function readNoFollow(real: string, maxBytes: number, tooLarge: (size: number) => Error): Buffer {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new PathError(`${real} became a symbolic link while reading; try again.`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new PathError(`${real} is not a regular file.`);
    if (stat.size > maxBytes) throw tooLarge(stat.size);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
