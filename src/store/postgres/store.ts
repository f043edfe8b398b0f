// The scaled-out store: PostgreSQL through a pg pool, shared by every replica. Sequence numbers
// come from the conversation row (last_seq), moved by the append statement itself: the row lock it
// takes serializes concurrent appenders on any replica, and a failed batch rolls its numbers back,
// so they stay gap-free. Each append is one statement, so one round trip.
import { messageBody } from '../body.js';
import {
  conversationEventsSql,
  conversationWhere,
  eventWhere,
  OWNER_CURSOR_SQL,
  ownerCountSql,
  ownerPageSql,
  SORTS,
  type Where,
  whereSql,
} from '../filters.js';
import {
  CONVERSATION_COLUMNS,
  type ConversationRow,
  EVENT_COLUMNS,
  inIdOrder,
  patchAssignments,
  toRecord,
  toRow,
} from '../rows.js';
import {
  type ConversationFilter,
  type ConversationPage,
  type ConversationPatch,
  type ConversationRecord,
  type ConversationSearch,
  type ConversationStore,
  type Document,
  type DocumentKind,
  type DocumentStore,
  type EventFilter,
  type EventJson,
  type EventPage,
  type EventSearch,
  type EventStore,
  type SettingsStore,
  type StorableEvent,
  type Store,
  type StoredEvent,
  UnknownConversationError,
  UnknownCursorError,
} from '../types.js';
import { PgDocuments } from './documents.js';
import { PgLocks } from './locks.js';
import { migratePostgres } from './migrations.js';
import { changes, type Queryable, query } from './queries.js';
import { numbered, POSTGRES, toCount } from './sql.js';
import { DatabaseUnavailableError } from './url.js';

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

class PgEvents implements EventStore {
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

  async getManyJson(conversationId: string, ids: readonly string[]): Promise<Buffer> {
    if (ids.length === 0) return Buffer.from('[]');
    const rows = await query<{ body: string }>(
      this.db,
      "SELECT '[' || string_agg(coalesce(e.json, 'null'), ',' ORDER BY j.n) || ']' AS body" +
        ' FROM unnest($2::text[]) WITH ORDINALITY AS j (id, n)' +
        ` LEFT JOIN events AS e ON e.conversation_key = ${KEY_OF} AND e.id = j.id`,
      [conversationId, ids],
    );
    return Buffer.from(rows[0]!.body, 'utf8');
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
    const rows = await query<StoredEvent>(this.db, numbered(sql), [
      conversationId,
      start,
      ...params,
      q.limit + 1,
    ]);
    const next = rows.length > q.limit ? rows.pop()! : null;
    return { items: rows, nextPageId: next?.id ?? null };
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
    const rows = await query<StoredEvent>(this.db, numbered(ownerPageSql(clauses, asc)), [
      ownerId,
      ...params,
      q.limit + 1,
    ]);
    const next = rows.length > q.limit ? rows.pop()! : null;
    return { items: rows, nextPageId: next?.id ?? null };
  }

  async countOfOwner(ownerId: string, filter: EventFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    return toCount(
      await query<{ n: string }>(this.db, numbered(ownerCountSql(clauses)), [ownerId, ...params]),
    );
  }
}

class PgConversations implements ConversationStore {
  constructor(private readonly db: Queryable) {}

  async create(record: ConversationRecord): Promise<void> {
    await query(
      this.db,
      `INSERT INTO conversations (${CONVERSATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      toRow(record),
    );
  }

  private async row(id: string): Promise<ConversationRow | undefined> {
    const rows = await query<ConversationRow>(
      this.db,
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  async get(id: string): Promise<ConversationRecord | null> {
    const row = await this.row(id);
    return row ? toRecord(row) : null;
  }

  async getMany(ids: readonly string[]): Promise<(ConversationRecord | null)[]> {
    if (ids.length === 0) return [];
    const rows = await query<ConversationRow>(
      this.db,
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ANY($1::text[])`,
      [ids],
    );
    return inIdOrder(ids, rows.map(toRecord));
  }

  async owner(id: string): Promise<string | null> {
    const rows = await query<{ owner_id: string }>(
      this.db,
      'SELECT owner_id FROM conversations WHERE id = $1',
      [id],
    );
    return rows[0]?.owner_id ?? null;
  }

  async update(id: string, patch: ConversationPatch): Promise<void> {
    const { sets, values } = patchAssignments(patch);
    if (sets.length === 0) return;
    const sql = `UPDATE conversations SET ${sets.join(', ')} WHERE id = ?`;
    if ((await changes(this.db, numbered(sql), [...values, id])) === 0)
      throw new UnknownConversationError(id);
  }

  async delete(id: string): Promise<boolean> {
    return (await changes(this.db, 'DELETE FROM conversations WHERE id = $1', [id])) > 0;
  }

  private where(filter: ConversationFilter): Where {
    return conversationWhere(filter, POSTGRES);
  }

  async search(q: ConversationSearch): Promise<ConversationPage> {
    const { column, asc } = SORTS[q.sort];
    const { clauses, params } = this.where(q);
    if (q.pageId !== undefined) {
      const cursor = await this.row(q.pageId);
      const matches = cursor && (q.ownerId === undefined || cursor.owner_id === q.ownerId);
      if (!matches) throw new UnknownCursorError(q.pageId);
      clauses.push(`(${column}, id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(cursor[column], cursor.id);
    }
    const order = asc ? 'ASC' : 'DESC';
    const sql =
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations${whereSql(clauses)}` +
      ` ORDER BY ${column} ${order}, id ${order} LIMIT ?`;
    const rows = await query<ConversationRow>(this.db, numbered(sql), [...params, q.limit + 1]);
    const next = rows.length > q.limit ? rows.pop()! : null;
    return { items: rows.map(toRecord), nextPageId: next?.id ?? null };
  }

  async count(filter: ConversationFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT count(*) AS n FROM conversations${whereSql(clauses)}`;
    return toCount(await query<{ n: string }>(this.db, numbered(sql), params));
  }
}

class PgSettings implements SettingsStore {
  constructor(
    private readonly db: Queryable,
    private readonly locks: PgLocks,
  ) {}
  exclusive<T>(userId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(`settings:${userId}`, work);
  }
  async get(userId: string): Promise<string | null> {
    const rows = await query<{ document: string }>(
      this.db,
      'SELECT document FROM settings WHERE user_id = $1',
      [userId],
    );
    return rows[0]?.document ?? null;
  }
  async put(userId: string, document: string): Promise<void> {
    await query(
      this.db,
      'INSERT INTO settings (user_id, document) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET document = excluded.document',
      [userId, document],
    );
  }
}

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (libpq parameters such as sslmode allowed). */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
}

/** Connects, applies the pending migrations (once across replicas), and returns the store. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  // Loaded here, not at start-up: a server on SQLite never pays for the driver (~20 ms, see scripts/build.mjs).
  const { Pool } = await import('pg'); // named: see llm/clients.ts
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    application_name: 'agentd',
  });
  // An idle connection the server drops emits 'error' on the pool; the pool discards it and the next
  // query opens another, so there is nothing to do but not crash.
  pool.on('error', () => {});
  // Lock holders wait on connections of their own: were they the queries' connections, holders
  // waiting for a lock could take every one and leave the holder of the lock none for its work.
  const lockPool = new Pool({
    connectionString: options.url,
    max: 4,
    connectionTimeoutMillis: 10_000,
    application_name: 'agentd-locks',
  });
  lockPool.on('error', () => {});
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    await lockPool.end();
    throw new DatabaseUnavailableError(options.url, error);
  }
  const locks = new PgLocks(lockPool);
  const documents = new Map<DocumentKind, PgDocuments<Document>>();
  return {
    conversations: new PgConversations(pool),
    events: new PgEvents(pool),
    settings: new PgSettings(pool, locks),
    documents<T extends Document>(kind: DocumentKind): DocumentStore<T> {
      let table = documents.get(kind);
      if (!table) {
        table = new PgDocuments(pool, kind);
        documents.set(kind, table);
      }
      return table as unknown as DocumentStore<T>;
    },
    exclusive: (name, work) => locks.run(name, work),
    async close() {
      if (!pool.ended) await pool.end();
      if (!lockPool.ended) await lockPool.end();
    },
  };
}
