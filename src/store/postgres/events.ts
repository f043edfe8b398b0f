// Events on PostgreSQL: appends number themselves from the conversation row's last_seq (see store.ts),
// one statement per batch; reads page by sequence number, within a conversation or across an owner's.
import { messageBody } from '../body.js';
import {
  conversationEventsSql,
  eventWhere,
  OWNER_CURSOR_SQL,
  ownerCountSql,
  ownerPageSql,
  rangeSql,
  type Where,
} from '../filters.js';
import { readPage } from '../pages.js';
import { CONVERSATION_COLUMNS, EVENT_COLUMNS, inIdOrder, patchAssignments, toRow } from '../rows.js';
import {
  type ConversationPatch,
  type ConversationRecord,
  type EventFilter,
  type EventIds,
  type EventJson,
  type EventPage,
  type EventSearch,
  type EventStore,
  type RangeRead,
  type StorableEvent,
  type StoredEvent,
  UnknownConversationError,
  UnknownCursorError,
} from '../types.js';
import { changes, type Queryable, query } from './queries.js';
import { numbered, POSTGRES, toCount } from './sql.js';

/** The conversation's key, as a subquery: NULL (so no rows) for an unknown conversation. */
const KEY_OF = '(SELECT key FROM conversations WHERE id = $1)';
/** The same with a `?` parameter, for SQL that `numbered` numbers. */
const KEY_OF_ID = '(SELECT key FROM conversations WHERE id = ?)';

/** A batch's events as the stored answer (seq still 0) and as six column arrays for unnest. */
function eventColumns(events: readonly StorableEvent[]): { stored: StoredEvent[]; columns: unknown[][] } {
  const stored: StoredEvent[] = new Array(events.length);
  const columns: unknown[][] = [[], [], [], [], [], []];
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const json = JSON.stringify(event);
    const source = event.source ?? null;
    stored[i] = { seq: 0, id: event.id, kind: event.kind, source, timestamp: event.timestamp, json };
    const row = [event.id, event.kind, source, event.timestamp, messageBody(event), json];
    for (let c = 0; c < 6; c++) columns[c]!.push(row[c]);
  }
  return { stored, columns };
}

export class PgEvents implements EventStore {
  constructor(private readonly db: Queryable) {}

  async append(
    conversationId: string,
    events: readonly StorableEvent[],
    update?: ConversationPatch,
  ): Promise<StoredEvent[]> {
    const { sets, values } = patchAssignments(update ?? {});
    const n = events.length;
    const { stored, columns } = eventColumns(events);
    const sql =
      `WITH c AS (UPDATE conversations SET ${['last_seq = last_seq + ?', ...sets].join(', ')}` +
      ' WHERE id = ? RETURNING key, last_seq - ? AS base)' +
      ' INSERT INTO events (conversation_key, seq, id, kind, source, timestamp, body, json)' +
      ' SELECT c.key, c.base + u.o, u.id, u.kind, u.source, u.ts, u.body, u.json FROM c,' +
      ' unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])' +
      ' WITH ORDINALITY AS u (id, kind, source, ts, body, json, o) RETURNING seq';
    const rows = await query<{ seq: number }>(this.db, numbered(sql), [
      n,
      ...values,
      conversationId,
      n,
      ...columns,
    ]);
    if (rows.length < n || (n === 0 && !(await this.emptyBatch(conversationId, sets, values))))
      throw new UnknownConversationError(conversationId);
    let base = Number.MAX_SAFE_INTEGER;
    for (const row of rows) base = Math.min(base, row.seq);
    for (let i = 0; i < n; i++) stored[i]!.seq = base + i;
    return stored;
  }

  async create(record: ConversationRecord, events: readonly StorableEvent[]): Promise<StoredEvent[]> {
    const { stored, columns } = eventColumns(events);
    // One statement, so one transaction: the record (its last_seq already the batch's size) and the
    // events, numbered from 1 in the order given.
    const sql =
      `WITH c AS (INSERT INTO conversations (${CONVERSATION_COLUMNS}, last_seq)` +
      ' VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING key)' +
      ' INSERT INTO events (conversation_key, seq, id, kind, source, timestamp, body, json)' +
      ' SELECT c.key, u.o, u.id, u.kind, u.source, u.ts, u.body, u.json FROM c,' +
      ' unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])' +
      ' WITH ORDINALITY AS u (id, kind, source, ts, body, json, o)';
    await query(this.db, numbered(sql), [...toRow(record), events.length, ...columns]);
    for (let i = 0; i < stored.length; i++) stored[i]!.seq = i + 1;
    return stored;
  }

  /** An empty batch: only the update (if any), and whether the conversation exists. */
  private async emptyBatch(conversationId: string, sets: string[], values: unknown[]): Promise<boolean> {
    if (sets.length === 0)
      return (await query(this.db, 'SELECT 1 FROM conversations WHERE id = $1', [conversationId])).length > 0;
    const sql = `UPDATE conversations SET ${sets.join(', ')} WHERE id = ?`;
    return (await changes(this.db, numbered(sql), [...values, conversationId])) > 0;
  }

  async getManyJson(conversationId: string, ownerId: string, ids: EventIds): Promise<Buffer | null> {
    // No row when the conversation is not the owner's; else one, '[]' for no ids.
    const rows = await query<{ body: string }>(
      this.db,
      "SELECT (SELECT '[' || coalesce(string_agg(coalesce(e.json, 'null'), ',' ORDER BY j.n), '') || ']'" +
        ' FROM unnest($2::text[]) WITH ORDINALITY AS j (id, n)' +
        ' LEFT JOIN events AS e ON e.conversation_key = c.key AND e.id = j.id) AS body' +
        ' FROM conversations AS c WHERE c.id = $1 AND c.owner_id = $3',
      [conversationId, ids.list, ownerId],
    );
    return rows[0] ? Buffer.from(rows[0].body, 'utf8') : null;
  }

  async get(conversationId: string, id: string): Promise<StoredEvent | null> {
    const rows = await query<StoredEvent>(
      this.db,
      `SELECT ${EVENT_COLUMNS} FROM events WHERE conversation_key = ${KEY_OF} AND id = $2`,
      [conversationId, id],
    );
    return rows[0] ?? null;
  }

  private where(filter: EventFilter): Where {
    return eventWhere(filter, POSTGRES);
  }

  async search(conversationId: string, q: EventSearch): Promise<EventPage> {
    const { clauses, params } = this.where(q);
    const asc = q.order === 'asc';
    let start: number = asc ? 0 : 2 ** 31 - 1;
    if (q.pageId !== undefined) {
      const rows = await query<{ seq: number }>(
        this.db,
        `SELECT seq FROM events WHERE conversation_key = ${KEY_OF} AND id = $2`,
        [conversationId, q.pageId],
      );
      if (!rows[0]) throw new UnknownCursorError(q.pageId);
      start = rows[0].seq;
    }
    const sql =
      `SELECT ${EVENT_COLUMNS}${conversationEventsSql(KEY_OF_ID, [`seq ${asc ? '>=' : '<='} ?`, ...clauses])}` +
      ` ORDER BY seq ${asc ? 'ASC' : 'DESC'} LIMIT ?`;
    return readPage(q.limit, (count) =>
      query<StoredEvent>(this.db, numbered(sql), [conversationId, start, ...params, count]),
    );
  }

  async count(conversationId: string, filter: EventFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT count(*) AS n${conversationEventsSql(KEY_OF_ID, clauses)}`;
    return toCount(await query<{ n: string }>(this.db, numbered(sql), [conversationId, ...params]));
  }

  async exists(conversationId: string, filter: EventFilter): Promise<boolean> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT EXISTS (SELECT 1${conversationEventsSql(KEY_OF_ID, clauses)}) AS found`;
    return (await query<{ found: boolean }>(this.db, numbered(sql), [conversationId, ...params]))[0]!.found;
  }

  async after(conversationId: string, afterSeq: number, limit: number): Promise<EventJson[]> {
    return query<EventJson>(
      this.db,
      `SELECT seq, id, json FROM events WHERE conversation_key = ${KEY_OF} AND seq > $2 ORDER BY seq LIMIT $3`,
      [conversationId, afterSeq, limit],
    );
  }

  async range(conversationId: string, read: RangeRead): Promise<EventJson[]> {
    const { sql, params } = rangeSql(KEY_OF_ID, read, POSTGRES);
    return query<EventJson>(this.db, numbered(sql), [conversationId, ...params]);
  }

  async lastSeq(conversationId: string): Promise<number> {
    const rows = await query<{ last_seq: number }>(
      this.db,
      'SELECT last_seq FROM conversations WHERE id = $1',
      [conversationId],
    );
    return rows[0]?.last_seq ?? 0;
  }

  async getManyOfOwner(ownerId: string, ids: readonly string[]): Promise<(EventJson | null)[]> {
    if (ids.length === 0) return [];
    const rows = await query<EventJson>(
      this.db,
      'SELECT e.id, e.seq, e.json FROM events AS e JOIN conversations AS c ON c.key = e.conversation_key' +
        ' WHERE e.id = ANY($1::text[]) AND c.owner_id = $2',
      [ids, ownerId],
    );
    return inIdOrder(ids, rows);
  }

  async searchOfOwner(ownerId: string, q: EventSearch): Promise<EventPage> {
    const { clauses, params } = this.where(q);
    const asc = q.order === 'asc';
    if (q.pageId !== undefined) {
      const rows = await query<{ timestamp: string }>(this.db, numbered(OWNER_CURSOR_SQL), [
        q.pageId,
        ownerId,
      ]);
      if (!rows[0]) throw new UnknownCursorError(q.pageId);
      clauses.push(`(timestamp, e.id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(rows[0].timestamp, q.pageId);
    }
    return readPage(q.limit, (count) =>
      query<StoredEvent>(this.db, numbered(ownerPageSql(clauses, asc)), [ownerId, ...params, count]),
    );
  }

  async countOfOwner(ownerId: string, filter: EventFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    return toCount(
      await query<{ n: string }>(this.db, numbered(ownerCountSql(clauses)), [ownerId, ...params]),
    );
  }
}
