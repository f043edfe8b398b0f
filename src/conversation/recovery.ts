// After a restart: the conversations the store says were running were cut off by the stop. Each
// goes to `error`, each action left without an observation gets an AgentErrorEvent (so a later `run`
// continues), and a ConversationErrorEvent `ServerRestarted` says why the run stopped.
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { Logger } from '../llm/index.js';
import { allItems, type Store } from '../store/index.js';
import { BranchReads } from './branch-reads.js';
import { headAfter } from './branches.js';
import type { EventLog } from './event-log.js';
import { stateOf, stateUpdateEvent } from './state.js';

export interface RecoveryDeps {
  store: Store;
  log: EventLog;
  /** The logger with the conversation's id on every line. */
  logFor(conversationId: string): Logger;
}

/**
 * Marks the conversations cut off by a stop; returns how many there were. With several replicas,
 * `claim` takes a conversation's lease first: one another live replica runs is left alone.
 */
export async function recoverInterrupted(
  deps: RecoveryDeps,
  claim: (conversationId: string) => Promise<boolean> = async () => true,
  release: (conversationId: string) => Promise<void> = async () => {},
): Promise<number> {
  let recovered = 0;
  const running = allItems((pageId) =>
    deps.store.conversations.search({
      executionStatus: 'running',
      sandboxed: false,
      limit: 100,
      sort: 'CREATED_AT',
      pageId,
    }),
  );
  for await (const record of running) {
    if (!(await claim(record.id))) continue;
    try {
      if (await recoverOne(deps, record.id)) recovered++;
    } finally {
      await release(record.id);
    }
  }
  return recovered;
}

/** Recovers one conversation if the store says it was running; false when it was not. */
export async function recoverOne(deps: RecoveryDeps, conversationId: string): Promise<boolean> {
  const record = await deps.store.conversations.get(conversationId);
  if (record?.executionStatus !== 'running' || record.sandboxId) return false;
  const state = stateOf(record);
  const now = new Date().toISOString();
  const unanswered = await new BranchReads(
    deps.store.events,
    record.id,
    state.branch_points,
  ).recoverAfterCrash();
  const appended = [
    ...unanswered,
    restartError(unanswered.length),
    stateUpdateEvent('execution_status', 'error'),
  ];
  const moved = headAfter(state, appended);
  await deps.log.append(record.id, appended, {
    executionStatus: 'error',
    updatedAt: now,
    ...(moved ? { state: moved as unknown as Record<string, unknown> } : {}),
  });
  deps
    .logFor(record.id)
    .warn(
      { unanswered_actions: unanswered.length },
      'conversation was running when the server stopped; marked error',
    );
  return true;
}

/** Why a conversation that was running is now `error` after a restart. */
function restartError(unanswered: number): AnyEvent {
  const cut = unanswered > 0 ? ` ${unanswered} tool call(s) did not finish and are marked as failed.` : '';
  return {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'environment',
    code: 'ServerRestarted',
    detail: `The server stopped (restart or crash) while this conversation was running, so the run was cut off.${cut} Send a message or POST /run to continue.`,
    kind: 'ConversationErrorEvent',
  } as AnyEvent;
}
