// Tool calls and their results must reach the LLM together: a tool result without its call, or a call
// without its result, is a request providers reject. A "batch" is the ActionEvents of one LLM response
// (one assistant message) plus the events answering them; condensation forgets or keeps a batch whole.
import { ANSWER_KINDS } from './llm-messages.js';

/** What this module needs of a view entry. */
export interface Entry {
  id: string;
  kind: string;
  llm_response_id?: unknown;
  tool_call_id?: unknown;
}

/** The batches of a view: for each, the indices of its members and whether every call is answered. */
function batches(entries: readonly Entry[]): { members: number[]; unanswered: number }[] {
  const byResponse = new Map<unknown, { members: number[]; unanswered: number }>();
  const byCall = new Map<unknown, { members: number[]; unanswered: number }>();
  entries.forEach((e, i) => {
    if (e.kind === 'ActionEvent') {
      let batch = byResponse.get(e.llm_response_id);
      if (!batch) {
        batch = { members: [], unanswered: 0 };
        byResponse.set(e.llm_response_id, batch);
      }
      batch.members.push(i);
      batch.unanswered++;
      byCall.set(e.tool_call_id, batch);
    } else if (ANSWER_KINDS.has(e.kind)) {
      const batch = byCall.get(e.tool_call_id);
      if (!batch) return;
      batch.members.push(i);
      batch.unanswered--;
    }
  });
  return [...byResponse.values()];
}

/**
 * The cut points of a view: `safe[i]` is true when no batch has members both before index i and at or
 * after it, so the view can be split there. A batch still waiting for results (confirmation pending)
 * reaches to the end: the view cannot be cut anywhere after its first call.
 */
export function safeCuts(entries: readonly Entry[]): boolean[] {
  const n = entries.length;
  const unsafe = new Array<number>(n + 2).fill(0);
  for (const batch of batches(entries)) {
    const first = Math.min(...batch.members);
    const last = batch.unanswered > 0 ? n : Math.max(...batch.members);
    // Cuts first+1 … last fall inside the batch (difference array: +1 at the start, -1 past the end).
    unsafe[first + 1]! += 1;
    unsafe[last + 1]! -= 1;
  }
  const safe: boolean[] = [];
  let depth = 0;
  for (let i = 0; i <= n; i++) {
    depth += unsafe[i]!;
    safe.push(depth === 0);
  }
  return safe;
}

/**
 * The forgotten ids grown so that no batch is split: forgetting one call or one result forgets its
 * whole batch. Our own condenser never needs this; it guards against Condensations written by others.
 */
export function closeOverBatches(entries: readonly Entry[], forgotten: ReadonlySet<string>): Set<string> {
  const closed = new Set(forgotten);
  for (const batch of batches(entries)) {
    if (batch.members.some((i) => closed.has(entries[i]!.id)))
      for (const i of batch.members) closed.add(entries[i]!.id);
  }
  return closed;
}
