// A conversation in a git worktree of its own (OpenHands' `worktree: true`; git/worktree.ts makes it):
// the state's working folder becomes the worktree's, the agent is told where it works (its context's
// system message suffix, as OpenHands tells it), and the state keeps the worktree so that deleting the
// conversation removes it (only when nothing in it is uncommitted: nothing is lost).
import { createWorktree, GitError, type Worktree, worktreeGuidance } from '../git/index.js';
import { InvalidConversationRequestError } from './errors.js';
import { withSystemSuffix } from './start-request.js';
import type { ConversationState } from './state.js';

/** The worktree for a start, or null outside a repository; git's refusal is a 422 at `worktree`. */
export async function conversationWorktree(
  folder: string,
  id: string,
  root: string,
): Promise<Worktree | null> {
  try {
    return await createWorktree(folder, id, root);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new InvalidConversationRequestError(
      ['body', 'worktree'],
      `Cannot make the conversation's git worktree: ${error.message}`,
    );
  }
}

export function inWorktree(state: ConversationState, worktree: Worktree): ConversationState {
  return {
    ...state,
    workspace: { ...state.workspace, working_dir: worktree.workingDir },
    agent: withSystemSuffix(state.agent, worktreeGuidance(worktree)),
    worktree,
  };
}
