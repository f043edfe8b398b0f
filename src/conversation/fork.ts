// Forking a conversation (OpenHands' POST /fork): a new conversation with a copy of the source's
// agent, state and events, idle, that runs on its own: the whole log with its branches and HEAD, or,
// with `from_event_id`, the path from the root to that event (branches.ts), HEAD at its end.
//
// Event ids differ from OpenHands here: OpenHands keeps them, but agentd's event ids are unique
// store-wide (the V1 /api/v1/events batch get finds an event by id alone), so each copied event gets
// a new id and every reference to a copied id inside the copy (an observation's `action_id`, a
// condensation's `forgotten_event_ids`, `last_user_message_id`, …) is rewritten to match.
//
// The log is read twice, a page at a time, with a turn of the event loop between pages: first keeping
// only its ids (every copied id's new id is known before any reference to it is rewritten, wherever
// the reference is: in the state, in an earlier event), then for the events, each page remapped in
// place and appended before the next is read. A 100k-event fork held every event parsed at once and
// kept every other request waiting for its 2-3 s; now it holds a page of events and the ids.
import { cpSync, existsSync, lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type AnyEvent, dashedUuid, newEventId } from '../events/index.js';
import { loopTurns } from '../loop/index.js';
import type { ConversationRecord, EventJson, Store } from '../store/index.js';
import { pathTo } from './branches.js';
import { ConversationIdInUseError, ConversationNotFoundError } from './errors.js';
import type { EventLog } from './event-log.js';
import type { ConversationState } from './state.js';

/** OpenHands' ForkConversationRequest. */
export interface ForkRequest {
  id?: string | null;
  title?: string | null;
  tags?: Record<string, string> | null;
  /** true (default): the fork's cost and token stats start at zero; false: copied. */
  reset_metrics?: boolean;
  /** Copy the path from the root to this event; absent or null: every event, every branch. */
  from_event_id?: string | null;
}

export interface ForkDeps {
  store: Store;
  log: EventLog;
  dataDir: string;
}

/** Events read (and appended) at a time. */
const PAGE = 500;

/** Creates the fork of `source` (a conversation this server runs) and returns its record. */
export async function forkConversation(
  deps: ForkDeps,
  source: ConversationRecord,
  request: ForkRequest,
): Promise<ConversationRecord> {
  const id = request.id ? dashedUuid(request.id) : crypto.randomUUID();
  if (await deps.store.conversations.owner(id)) throw new ConversationIdInUseError(id);
  // The record and the number of the log's last event as of one moment, between two appends of a
  // running source: the events up to that number are the copy, whatever is appended meanwhile.
  const { record, last } = await deps.log.read(source.id, async () => ({
    record: (await deps.store.conversations.get(source.id)) ?? source,
    last: await deps.store.events.lastSeq(source.id),
  }));
  const sourceState = record.state as unknown as ConversationState;
  const entries: { seq: number; id: string }[] = [];
  for await (const page of pages(deps.store, source.id, last))
    for (const e of page) entries.push({ seq: e.seq, id: e.id });
  const from = request.from_event_id ?? null;
  const copied = from === null ? entries : pathTo(entries, sourceState.branch_points, from, 'from_event_id');
  // A path has no branches: the fork's HEAD is the end of its log, as for a conversation never navigated.
  const { branch_points, leaf_event_id, ...linear } = sourceState;
  const copiedState = from === null ? sourceState : linear;

  // New ids a page a turn too: the 100k of a long conversation at once would hold the loop ~50 ms.
  const ids = new Map<string, string>();
  for (let i = 0; i < copied.length; i += PAGE) {
    for (const e of copied.slice(i, i + PAGE)) ids.set(e.id, newEventId());
    await loopTurns.turn('background');
  }
  const persistenceDir = join(deps.dataDir, 'conversations', id.replaceAll('-', ''));
  // A copy of its own: remapIds rewrites in place, and the source record may be its runtime's.
  const ownState = JSON.parse(JSON.stringify(copiedState)) as ConversationState;
  // The fork works in the source's folder, a worktree too, but does not own it: deleting the fork
  // leaves the source's worktree alone.
  const { worktree: _owned, ...remapped } = remapIds(ownState, ids) as ConversationState;
  const state: ConversationState = {
    ...remapped,
    persistence_dir: persistenceDir,
    ...(request.reset_metrics === false ? {} : { stats: { usage_to_metrics: {} } }),
    forked_from: { conversation_id: source.id, event_id: request.from_event_id ?? null },
  };
  const title = request.title ?? null;
  // As OpenHands: the given tags (else the source's), with the title merged in.
  const tags = { ...(request.tags ?? record.tags), ...(title ? { title } : {}) };
  const now = new Date().toISOString();

  // The agent's own files (the task list, saved observations) are copied, so the fork keeps them
  // and changes to one side never reach the other.
  // Only folders and regular files: a socket or a link left there is not the agent's data.
  const plain = (path: string) => {
    const stat = lstatSync(path);
    return stat.isDirectory() || stat.isFile();
  };
  if (existsSync(sourceState.persistence_dir))
    cpSync(sourceState.persistence_dir, persistenceDir, { recursive: true, filter: plain });
  try {
    await deps.store.conversations.create({
      id,
      ownerId: record.ownerId,
      title,
      tags,
      executionStatus: 'idle',
      state: state as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    });
  } catch (error) {
    rmSync(persistenceDir, { recursive: true, force: true });
    // Two forks racing for one id: the loser is told the id is taken.
    if (await deps.store.conversations.owner(id)) throw new ConversationIdInUseError(id);
    throw error;
  }
  try {
    // A path ascends through the log (a branch continues from an older event), so the copy is the
    // log's events up to the path's last, those of the path kept.
    const kept = from === null ? null : new Set(copied.map((e) => e.seq));
    const end = copied.length === 0 ? 0 : copied[copied.length - 1]!.seq;
    for await (const page of pages(deps.store, source.id, end)) {
      const batch: AnyEvent[] = [];
      for (const e of page)
        if (!kept || kept.has(e.seq)) batch.push(remapIds(JSON.parse(e.json), ids) as AnyEvent);
      if (batch.length > 0) await deps.store.events.append(id, batch);
    }
  } catch (error) {
    await deps.store.conversations.delete(id);
    rmSync(persistenceDir, { recursive: true, force: true });
    throw error;
  }
  return (await deps.store.conversations.get(id)) as ConversationRecord;
}

/**
 * The source's events numbered 1 to `last`, a page at a time, a turn of the event loop after each (a
 * fork is long work, taken in turns like an agent's steps). Those events were all there when the
 * fork began, and events never change: fewer means the source was deleted since.
 */
async function* pages(store: Store, conversationId: string, last: number): AsyncGenerator<EventJson[]> {
  for (let after = 0; after < last; ) {
    const page = await store.events.after(conversationId, after, Math.min(PAGE, last - after));
    if (page.length === 0) throw new ConversationNotFoundError(conversationId);
    yield page;
    after = page[page.length - 1]!.seq;
    await loopTurns.turn('background');
  }
}

/**
 * `value`, parsed JSON the fork owns, with every string value and member name that is a copied
 * event's id replaced by its new id (event ids are UUIDs, so a string equal to one is a reference to
 * that event). In place: a deep copy of each event doubled what a page allocates, and the heap a
 * 100k-event fork grew to before a full collection (its RSS peak was ~50 MB higher in most runs).
 * An object with a member named by an id is made again, to keep its members' order.
 */
function remapIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const remapped = remapIds(value[i], ids);
      if (remapped !== value[i]) value[i] = remapped;
    }
    return value;
  }
  if (value && typeof value === 'object') {
    const members = value as Record<string, unknown>;
    let named = false;
    for (const key of Object.keys(members)) {
      const remapped = remapIds(members[key], ids);
      if (remapped !== members[key]) members[key] = remapped;
      if (ids.has(key)) named = true;
    }
    if (!named) return members;
    return Object.fromEntries(Object.entries(members).map(([k, v]) => [ids.get(k) ?? k, v]));
  }
  return value;
}
