// OpenHands' parent link (`parent_conversation_id` in a start): a conversation started as a
// sub-conversation of another names it as its parent, and the parent's info lists it in
// `sub_conversation_ids`. The link is set once, at the start, so no cycle can form; deleting the
// parent leaves its children as they are, naming it still (as OpenHands does).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { dashedUuid } from '../events/index.js';
import type { ConversationRecord } from '../store/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { StartConversationRequest } from './schemas.js';
import { stateOf } from './state.js';

const LOC = ['body', 'parent_conversation_id'];

/**
 * The parent a start names, checked: one of the caller's conversations (another user's reads as
 * unknown), not the one being started, working in the same folder (OpenHands' rule: a
 * sub-conversation shares its parent's workspace). Null when the start names none.
 */
export async function startParent(
  id: string,
  request: StartConversationRequest,
  /** The caller's conversation of that id, or null (another user's too). */
  callersConversation: (id: string) => Promise<ConversationRecord | null>,
): Promise<string | null> {
  const given = request.parent_conversation_id;
  if (!given) return null;
  const parentId = dashedUuid(given);
  if (parentId === id)
    throw new InvalidConversationRequestError(LOC, 'A conversation cannot be its own parent');
  const parent = await callersConversation(parentId);
  if (!parent) throw new InvalidConversationRequestError(LOC, `Parent conversation ${given} not found`);
  if (folder(stateOf(parent).workspace.working_dir) !== folder(request.workspace.working_dir))
    throw new InvalidConversationRequestError(
      LOC,
      `Parent conversation ${given} belongs to a different workspace`,
    );
  return parentId;
}

/** A folder as the file system names it: links resolved where it exists (a start may create it). */
function folder(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
