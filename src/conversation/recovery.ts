// After a restart: the conversations the store says were running were cut off by the stop. Each
// goes to `error`, each action left without an observation gets an AgentErrorEvent (so a later `run`
// continues), and a ConversationErrorEvent `ServerRestarted` says why the run stopped.
import { recoverAfterCrash } from '../agent/index.js';
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { Logger } from '../llm/index.js';
import { allItems, type ConversationRecord, type Store } from '../store/index.js';
import type { EventLog } from './event-log.js';
import { stateUpdateEvent } from './state.js';

export interface RecoveryDeps {
  store: Store;
  log: EventLog;
  loadEvents(id: string): Promise<AnyEvent[]>;
  /** The logger with the conversation's id on every line. */
  logFor(conversationId: string): Logger;
  /**
   * Whether this process may recover a conversation the store says is running. Default: every one
   * (the embedded default, one process per store). With a store several replicas share, only one
   * no live replica runs: the caller decides (e.g. by lease).
   */
  claim?: (record: ConversationRecord) => Promise<boolean>;
}

/** Marks the conversations cut off by a stop; returns how many there were. */
export async function recoverInterrupted(deps: RecoveryDeps): Promise<number> {
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
    if (deps.claim && !(await deps.claim(record))) continue;
    const events = await deps.loadEvents(record.id);
    const now = new Date().toISOString();
    const unanswered = recoverAfterCrash(events);
    await deps.log.append(
      record.id,
      [...unanswered, restartError(unanswered.length), stateUpdateEvent('execution_status', 'error')],
      {
        executionStatus: 'error',
        updatedAt: now,
      },
    );
    deps
      .logFor(record.id)
      .warn(
        { unanswered_actions: unanswered.length },
        'conversation was running when the server stopped; marked error',
      );
    recovered++;
  }
  return recovered;
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
