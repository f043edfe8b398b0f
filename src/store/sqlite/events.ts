// Events of the embedded store: appends and creates in the write group (write-group.ts), each with
// gap-free sequence numbers per conversation; reads by id, by page and after a seq, with the stored
// JSON text handed out as it is.
import type Database from 'better-sqlite3';
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
import { EVENT_COLUMNS, inIdOrder } from '../rows.js';
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
import { SQLITE, type StatementCache } from './sql.js';
import type { WriteGroup } from './write-group.js';

/** An event row read raw: seq, id, json. */
type EventRow = [number, string, string];

/** Raw `seq, id, json` rows as EventJson (a keyed row from better-sqlite3 costs about twice as much). */
function eventJsons(rows: EventRow[]): EventJson[] {
  const out: EventJson[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    out[i] = { seq: row[0], id: row[1], json: row[2] };
  }
  return out;
}

export class SqliteEvents implements EventStore {
  private readonly lastSeqOf: Database.Statement;
  private readonly insert: Database.Statement;
  private readonly lastSeqs = new Map<string, number>();
  /** Conversation id → its integer key; ids and keys never change, so this is a plain cache. */
  private readonly keys = new Map<string, number>();
  private readonly keyOf: Database.Statement;
  private readonly byIds: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly seqOfId: Database.Statement;
  private readonly afterSeq: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly statements: StatementCache,
    private readonly patchConversation: (id: string, patch: ConversationPatch) => void,
    /** Inserts a conversation's row and answers its key. */
    private readonly insertConversation: (record: ConversationRecord) => number,
    /** Where appends and creates are committed (see write-group.ts). */
    private readonly group: WriteGroup,
  ) {
    this.lastSeqOf = db.prepare('SELECT max(seq) FROM events WHERE conversation_key = ?').pluck();
    this.insert = db.prepare(
      'INSERT INTO events (conversation_key, seq, id, kind, source, timestamp, body, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // The answer as one value, joined by SQLite, in the owner's conversation's row (no row when the
    // conversation is not the owner's; '[]' for no ids). The LEFT JOIN keeps json_each as the outer
    // loop (one index lookup per requested id, null where none), json_each walks the ids in array
    // order, and an aggregate without GROUP BY takes the rows in loop order; an ORDER BY j.key inside
    // it would sort a copy of every text (twice the time). The BLOB cast hands the bytes to Node as
    // they are stored, never decoded into a JavaScript string. A test holds the order to this.
    this.byIds = db
      .prepare(
        "SELECT (SELECT CAST('[' || coalesce(group_concat(coalesce(e.json, 'null'), ','), '') || ']' AS BLOB)" +
          ' FROM json_each(?) AS j LEFT JOIN events AS e ON e.conversation_key = c.key AND e.id = j.value)' +
          ' FROM conversations AS c WHERE c.id = ? AND c.owner_id = ?',
      )
      .pluck();
    this.byId = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE conversation_key = ? AND id = ?`);
    this.seqOfId = db.prepare('SELECT seq FROM events WHERE conversation_key = ? AND id = ?').pluck();
    this.keyOf = db.prepare('SELECT key FROM conversations WHERE id = ?').pluck();
    // Raw rows: better-sqlite3 builds a keyed row object at about twice the cost of the literal below.
    this.afterSeq = db
      .prepare('SELECT seq, id, json FROM events WHERE conversation_key = ? AND seq > ? ORDER BY seq LIMIT ?')
      .raw();
  }

  private insertEvents(key: number, last: number, events: readonly StorableEvent[]): StoredEvent[] {
    const stored: StoredEvent[] = new Array(events.length);
    let seq = last;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      seq += 1;
      const json = JSON.stringify(event);
      const source = event.source ?? null;
      this.insert.run(key, seq, event.id, event.kind, source, event.timestamp, messageBody(event), json);
      stored[i] = { seq, id: event.id, kind: event.kind, source, timestamp: event.timestamp, json };
    }
    return stored;
  }

  /** The conversation's integer key, or undefined when the conversation does not exist. */
  private key(conversationId: string): number | undefined {
    let key = this.keys.get(conversationId);
    if (key === undefined) {
      key = this.keyOf.get(conversationId) as number | undefined;
      if (key !== undefined) this.keys.set(conversationId, key);
    }
    return key;
  }

  /** For reads: a key that matches no event when the conversation does not exist. */
  private readKey(conversationId: string): number {
    return this.key(conversationId) ?? -1;
  }

  /** The conversation's last sequence number: cached, since this process is the file's only writer. */
  private currentSeq(conversationId: string): number {
    const cached = this.lastSeqs.get(conversationId);
    if (cached !== undefined) return cached;
    const key = this.key(conversationId);
    if (key === undefined) throw new UnknownConversationError(conversationId);
    return (this.lastSeqOf.get(key) as number | null) ?? 0;
  }

  /** Forgets what was cached about a deleted conversation. */
  forget(conversationId: string): void {
    this.lastSeqs.delete(conversationId);
    this.keys.delete(conversationId);
  }

  append(
    conversationId: string,
    events: readonly StorableEvent[],
    update?: ConversationPatch,
  ): Promise<StoredEvent[]> {
    // Its statements only: the write group (write-group.ts) frames them in its transaction.
    return this.group.add(
      () => {
        const last = this.currentSeq(conversationId);
        const stored = this.insertEvents(this.key(conversationId)!, last, events);
        if (update) this.patchConversation(conversationId, update);
        const lastStored = stored[stored.length - 1];
        if (lastStored) this.lastSeqs.set(conversationId, lastStored.seq);
        return stored;
      },
      // A group that fails takes the batch with it: the sequence number is read again next time.
      () => this.lastSeqs.delete(conversationId),
    );
  }

  create(record: ConversationRecord, events: readonly StorableEvent[]): Promise<StoredEvent[]> {
    // The row's key comes from its insert (nothing is read); what is cached of it goes if the group fails.
    return this.group.add(
      () => {
        const key = this.insertConversation(record);
        const stored = this.insertEvents(key, 0, events);
        this.keys.set(record.id, key);
        this.lastSeqs.set(record.id, stored.length);
        return stored;
      },
      () => this.forget(record.id),
    );
  }

  async getManyJson(conversationId: string, ownerId: string, ids: EventIds): Promise<Buffer | null> {
    return (this.byIds.get(ids.json, conversationId, ownerId) as Buffer | undefined) ?? null;
  }

  async get(conversationId: string, id: string): Promise<StoredEvent | null> {
    return (this.byId.get(this.readKey(conversationId), id) as StoredEvent | undefined) ?? null;
  }

  private where(filter: EventFilter): Where {
    return eventWhere(filter, SQLITE);
  }

  async search(conversationId: string, query: EventSearch): Promise<EventPage> {
    const { clauses, params } = this.where(query);
    const asc = query.order === 'asc';
    let start: number = asc ? 0 : Number.MAX_SAFE_INTEGER;
    if (query.pageId !== undefined) {
      const seq = this.seqOfId.get(this.readKey(conversationId), query.pageId) as number | undefined;
      if (seq === undefined) throw new UnknownCursorError(query.pageId);
      start = seq;
    }
    const sql =
      `SELECT ${EVENT_COLUMNS}${conversationEventsSql('?', [`seq ${asc ? '>=' : '<='} ?`, ...clauses])}` +
      ` ORDER BY seq ${asc ? 'ASC' : 'DESC'} LIMIT ?`;
    const key = this.readKey(conversationId);
    return readPage(
      query.limit,
      (count) => this.statements.get(sql).all(key, start, ...params, count) as StoredEvent[],
    );
  }

  async count(conversationId: string, filter: EventFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT count(*)${conversationEventsSql('?', clauses)}`;
    return this.statements
      .get(sql)
      .pluck()
      .get(this.readKey(conversationId), ...params) as number;
  }

  async exists(conversationId: string, filter: EventFilter): Promise<boolean> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT EXISTS (SELECT 1${conversationEventsSql('?', clauses)})`;
    return (
      this.statements
        .get(sql)
        .pluck()
        .get(this.readKey(conversationId), ...params) === 1
    );
  }

  async after(conversationId: string, afterSeq: number, limit: number): Promise<EventJson[]> {
    return eventJsons(this.afterSeq.all(this.readKey(conversationId), afterSeq, limit) as EventRow[]);
  }

  async range(conversationId: string, read: RangeRead): Promise<EventJson[]> {
    const { sql, params } = rangeSql('?', read, SQLITE);
    const rows = this.statements
      .get(sql)
      .raw()
      .all(this.readKey(conversationId), ...params) as EventRow[];
    return eventJsons(rows);
  }

  async getManyOfOwner(ownerId: string, ids: readonly string[]): Promise<(EventJson | null)[]> {
    if (ids.length === 0) return [];
    const rows = this.statements
      .get(
        'SELECT e.id, e.seq, e.json FROM json_each(?) AS j CROSS JOIN events AS e ON e.id = j.value' +
          ' JOIN conversations AS c ON c.key = e.conversation_key WHERE c.owner_id = ?',
      )
      .all(JSON.stringify(ids), ownerId) as EventJson[];
    return inIdOrder(ids, rows);
  }

  async searchOfOwner(ownerId: string, query: EventSearch): Promise<EventPage> {
    const { clauses, params } = this.where(query);
    const asc = query.order === 'asc';
    if (query.pageId !== undefined) {
      const cursor = this.statements.get(OWNER_CURSOR_SQL).pluck().get(query.pageId, ownerId) as
        | string
        | undefined;
      if (cursor === undefined) throw new UnknownCursorError(query.pageId);
      clauses.push(`(timestamp, e.id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(cursor, query.pageId);
    }
    return readPage(
      query.limit,
      (count) =>
        this.statements.get(ownerPageSql(clauses, asc)).all(ownerId, ...params, count) as StoredEvent[],
    );
  }

  async countOfOwner(ownerId: string, filter: EventFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    return this.statements
      .get(ownerCountSql(clauses))
      .pluck()
      .get(ownerId, ...params) as number;
  }

  async lastSeq(conversationId: string): Promise<number> {
    try {
      return this.currentSeq(conversationId);
    } catch (error) {
      if (error instanceof UnknownConversationError) return 0;
      throw error;
    }
  }
}
