// What a file operation refuses, as a status the HTTP layer answers in `{detail}` (OpenHands'
// statuses and messages where it has them), and the mapping from Node's fs errors to it.
import { isAbsolute } from 'node:path';

export class FileOperationError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'FileOperationError';
  }
}

/** Longest path accepted (Linux PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;

/** The path as given, when it is absolute and one the file system can name; a 400 otherwise. */
export function absolutePath(path: string): string {
  // Node throws on a NUL byte; the caller's mistake, not ours.
  if (path.includes('\0')) throw new FileOperationError(400, 'Path must not contain NUL characters');
  if (!isAbsolute(path)) throw new FileOperationError(400, 'Path must be absolute');
  return path;
}

/**
 * An fs error as the caller's problem where it is one (missing, wrong kind, no permission, name too
 * long); anything else is rethrown, an error of the server.
 */
export function fsFailure(error: unknown, what: { missing: string; wrongKind: string }): never {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      throw new FileOperationError(404, what.missing);
    case 'ENOTDIR':
    case 'EISDIR':
    case 'EEXIST':
    case 'ELOOP':
      throw new FileOperationError(400, what.wrongKind);
    case 'ENAMETOOLONG':
      throw new FileOperationError(400, 'Path is too long');
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      throw new FileOperationError(403, `Permission denied: ${(error as Error).message}`);
    default:
      throw error;
  }
}
