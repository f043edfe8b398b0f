// What can go wrong in a git query, named by kind so the HTTP layer picks the status and the domain
// stays free of HTTP: a path that is not there, a folder outside any repository, input git refuses.

export type GitErrorKind =
  /** The path does not exist (or a file was asked for and none is there, in the worktree or the base). */
  | 'not_found'
  /** The folder (or the file's folder) is in no git work tree. */
  | 'not_a_repository'
  /** The input cannot be used: a ref or commit that does not resolve, a folder where a file is needed, … */
  | 'bad_input'
  /** A file over the diff size cap, or git output over the output cap. */
  | 'too_large'
  /** git failed for a reason of its own (its first stderr line is the detail), or timed out. */
  | 'failed'
  /** No git executable on this server. */
  | 'unavailable';

export class GitError extends Error {
  constructor(
    readonly kind: GitErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}
