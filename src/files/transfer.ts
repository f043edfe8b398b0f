// Uploads (streamed to a temporary file beside the target, then renamed over it, so a reader never
// sees half a file and a failed upload leaves the old one), downloads (an open file and its size) and
// directory creation. Every path must be absolute, as OpenHands requires.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { absolutePath, FileOperationError, fsFailure } from './errors.js';

const PARENT = { missing: 'Parent directory not found', wrongKind: 'Parent path is not a directory' };

/**
 * Writes `source` to `path` (parents created, an existing file replaced).
 * `complete` is asked before the rename: false (a source cut short) is a 413 and the target is untouched.
 */
export async function saveUpload(path: string, source: Readable, complete = () => true): Promise<void> {
  const target = absolutePath(path);
  const existing = await stat(target).catch(() => null);
  if (existing?.isDirectory()) throw new FileOperationError(400, 'Path is a directory');
  // A device, FIFO or socket is never swapped for a regular file (a root server's /dev/null, say).
  if (existing && !existing.isFile()) throw new FileOperationError(400, 'Path is not a regular file');
  await mkdir(dirname(target), { recursive: true }).catch((error) => fsFailure(error, PARENT));
  // Beside the target, so the rename stays on one file system; a short name, so it fits where the target does.
  const temporary = join(dirname(target), `.agentd-upload-${randomUUID()}`);
  try {
    await pipeline(source, createWriteStream(temporary, { flags: 'wx', mode: 0o666 }));
    if (!complete()) throw new FileOperationError(413, 'The file is larger than the upload limit');
    // A replaced file keeps its permissions, as writing over it in place would.
    if (existing) await chmod(temporary, existing.mode & 0o7777);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    if (error instanceof FileOperationError) throw error;
    fsFailure(error, { missing: 'Parent directory not found', wrongKind: 'Path is a directory' });
  }
}

export interface Download {
  stream: Readable;
  size: number;
  name: string;
}

/** The file opened for reading, with the size of what was opened (not of a path that may change since). */
export async function openDownload(path: string): Promise<Download> {
  const target = absolutePath(path);
  const what = { missing: 'File not found', wrongKind: 'Path is not a file' };
  const info = await stat(target).catch((error) => fsFailure(error, what));
  if (!info.isFile()) throw new FileOperationError(400, 'Path is not a file');
  const handle = await open(target, 'r').catch((error) => fsFailure(error, what));
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new FileOperationError(400, 'Path is not a file');
    return { stream: handle.createReadStream(), size: opened.size, name: basename(target) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** `mkdir -p`: an existing directory is fine; a file in the way is the caller's mistake (400). */
export async function createDirectory(path: string): Promise<void> {
  const target = absolutePath(path);
  await mkdir(target, { recursive: true }).catch((error) =>
    fsFailure(error, {
      missing: 'Parent directory not found',
      wrongKind: 'Path exists and is not a directory',
    }),
  );
}
