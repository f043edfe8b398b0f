export { baseRef } from './base-ref.js';
export { commitChanges, gitChanges, parseNameStatus } from './changes.js';
export { gitCommits, MAX_COMMITS } from './commits.js';
export { commitFileDiff, gitDiff, MAX_DIFF_FILE_BYTES } from './diff.js';
export { GitError, type GitErrorKind } from './errors.js';
export { absolutePath } from './paths.js';
export {
  EMPTY_TREE,
  GIT_TIMEOUT_MS,
  gitEnv,
  MAX_GIT_OUTPUT_BYTES,
  NO_DIFF_PROGRAMS,
  oneReading,
  runGit,
  safeGitArgs,
} from './run.js';
export * from './schemas.js';
export { createWorktree, removeWorktree, type Worktree, worktreeGuidance } from './worktree.js';
