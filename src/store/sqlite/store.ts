// The embedded store: one SQLite file (WAL) through better-sqlite3. Statements are prepared once
// (per filter combination for searches) and reused; better-sqlite3 is synchronous, so each method
// is a plain call wrapped in the async port.
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { loopTurns } from '../../loop/index.js';
import { conversationWhere, SORTS, type Where, whereSql } from '../filters.js';
import { LocalLocks } from '../locks.js';
import { readPage } from '../pages.js';
import {
  CONVERSATION_COLUMNS,
  type ConversationRow,
  childrenByParent,
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
  type EventStore,
  type SettingsStore,
  type Store,
  UnknownConversationError,
  UnknownCursorError,
} from '../types.js';
import { DocumentTable } from './documents.js';
import { SqliteEvents } from './events.js';
import { migrate } from './migrations.js';
import { SQLITE, StatementCache } from './sql.js';
import { WriteGroup } from './write-group.js';

/**
 * How each call of a port meets the open write group (write-group.ts): it is one of the grouped
 * appends; it commits the group first (it reads or writes the tables the group writes, events and
 * conversations, or writes at all: a write run inside the group would be answered before it is
 * committed); or it only reads tables the group never writes, where the group changes nothing.
 */
type Calls<P> = { [K in keyof P]: 'grouped' | 'commits the group first' | 'reads no grouped table' };

/** The port `P` of `impl`, each call as `calls` says (every call of the port must be named). */
function port<P extends object>(impl: P, group: WriteGroup, calls: Calls<P>): P {
  const out: Record<string, unknown> = {};
  for (const [name, how] of Object.entries(calls)) {
    const method = (impl as Record<string, (...args: unknown[]) => unknown>)[name]!.bind(impl);
    out[name] =
      how !== 'commits the group first'
        ? method
        : (...args: unknown[]) => {
            group.commit();
            return method(...args);
          };
  }
  return out as P;
}

/**
 * Event rows a delete removes per statement, with a turn of the event loop between two. Measured alone
 * on the 2-core machine, on a 100k-event conversation: 51 statements of 2.3 ms each (p50), where one
 * statement for all of them took 217 ms, every other request waiting (in the server, bin-writes'
 * longest /health during a delete was 331–418 ms before the chunks, 111–186 ms after).
 */
export const DELETE_CHUNK = 2_000;

/**
 * A deleted conversation's row until its events are gone: its id becomes `deleted:<key>` (no
 * conversation id looks like that; the real one is free again at once), its owner the same and its
 * status `deleted`, so no read by id or owner finds it, nor a filter on status, sandbox or parent.
 */
const TOMBSTONE = 'deleted:';

class SqliteConversations implements ConversationStore {
  /** Called after a delete, so the events side drops what it cached about the conversation. */
  onDelete: (id: string) => void = () => {};
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly byIds: Database.Statement;
  private readonly hide: Database.Statement;
  private readonly removeEvents: Database.Statement;
  private readonly removeRow: Database.Statement;
  private readonly tombstones: Database.Statement;
  private readonly ownerOf: Database.Statement;
  private readonly childrenOf: Database.Statement;
  /**
   * The conversations that have (or had) a sub-conversation. One process writes this file and sees
   * every insert, so a conversation missing here has none, and a read of it skips the children query:
   * ~30 µs of a GET of a conversation in the server (each statement takes the WAL's read lock), for
   * what is nearly always no rows. A deleted child leaves its parent here, which costs only the query.
   */
  private readonly parents: Set<string>;

  constructor(
    db: Database.Database,
    private readonly statements: StatementCache,
    private readonly group: WriteGroup,
  ) {
    this.insert = db.prepare(
      `INSERT INTO conversations (${CONVERSATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.byId = db.prepare(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ?`);
    this.byIds = db.prepare(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id IN (SELECT value FROM json_each(?))`,
    );
    this.hide = db
      .prepare(
        `UPDATE conversations SET id = '${TOMBSTONE}' || key, owner_id = '${TOMBSTONE}' || key,` +
          " execution_status = 'deleted', sandbox_id = NULL, parent_id = NULL WHERE id = ? RETURNING key",
      )
      .pluck();
    this.removeEvents = db.prepare(
      'DELETE FROM events WHERE rowid IN (SELECT rowid FROM events WHERE conversation_key = ? LIMIT ?)',
    );
    this.removeRow = db.prepare('DELETE FROM conversations WHERE key = ?');
    // The unique index on id answers the range.
    this.tombstones = db
      .prepare(
        `SELECT key FROM conversations WHERE id >= '${TOMBSTONE}' AND id < '${TOMBSTONE.slice(0, -1)};'`,
      )
      .pluck();
    this.ownerOf = db.prepare('SELECT owner_id FROM conversations WHERE id = ?').pluck();
    // The partial index conversations_parent answers it: most conversations have no parent.
    this.childrenOf = db.prepare(
      'SELECT parent_id, id FROM conversations WHERE parent_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id',
    );
    this.parents = new Set(
      db
        .prepare('SELECT DISTINCT parent_id FROM conversations WHERE parent_id IS NOT NULL')
        .pluck()
        .all() as string[],
    );
  }

  async create(record: ConversationRecord): Promise<void> {
    this.insertRow(record);
  }

  /**
   * Synchronous, so a transaction creating a conversation with its first events can include it.
   * Answers the row's key (the INTEGER PRIMARY KEY, SQLite's rowid).
   */
  insertRow(record: ConversationRecord): number {
    if (record.parentId) this.parents.add(record.parentId);
    return Number(this.insert.run(...toRow(record)).lastInsertRowid);
  }

  async get(id: string): Promise<ConversationRecord | null> {
    const row = this.byId.get(id) as ConversationRow | undefined;
    return row ? toRecord(row) : null;
  }

  async getMany(ids: readonly string[]): Promise<(ConversationRecord | null)[]> {
    if (ids.length === 0) return [];
    return inIdOrder(ids, (this.byIds.all(JSON.stringify(ids)) as ConversationRow[]).map(toRecord));
  }

  async owner(id: string): Promise<string | null> {
    return (this.ownerOf.get(id) as string | undefined) ?? null;
  }

  async children(parentIds: readonly string[]): Promise<Map<string, string[]>> {
    const parents = parentIds.filter((id) => this.parents.has(id));
    if (parents.length === 0) return new Map();
    return childrenByParent(
      this.childrenOf.all(JSON.stringify(parents)) as { parent_id: string; id: string }[],
    );
  }

  /** Synchronous, so the event append transaction can include it. */
  patch(id: string, patch: ConversationPatch): void {
    const { sets, values } = patchAssignments(patch);
    if (sets.length === 0) return;
    const sql = `UPDATE conversations SET ${sets.join(', ')} WHERE id = ?`;
    const result = this.statements.get(sql).run(...values, id);
    if (result.changes === 0) throw new UnknownConversationError(id);
  }

  async update(id: string, patch: ConversationPatch): Promise<void> {
    this.patch(id, patch);
  }

  /**
   * Hides the conversation (one row written: every read misses it from then on), then removes its
   * events a chunk at a time, letting other work in between, then the row. A crash midway leaves a
   * hidden row and some of its events, which the next open removes (`finishDeletes`): nothing is
   * half visible, and the key stays taken until its events are gone, so no new conversation gets it.
   */
  async delete(id: string): Promise<boolean> {
    const key = this.hide.get(id) as number | undefined;
    this.onDelete(id);
    if (key === undefined) return false;
    for (;;) {
      // Appends may have opened a group since the last chunk: each statement commits it first.
      this.group.commit();
      if (this.removeEvents.run(key, DELETE_CHUNK).changes < DELETE_CHUNK) break;
      // In the loop's queue of background work, as a fork's pages and an agent's steps: a start
      // waiting for its turn goes first.
      await loopTurns.turn('background');
    }
    this.removeRow.run(key);
    return true;
  }

  /** Removes what deletes cut off by a crash left (at open, before anyone reads). */
  finishDeletes(): void {
    for (const key of this.tombstones.all() as number[]) {
      while (this.removeEvents.run(key, DELETE_CHUNK).changes === DELETE_CHUNK);
      this.removeRow.run(key);
    }
  }

  private where(filter: ConversationFilter): Where {
    return conversationWhere(filter, SQLITE);
  }

  async search(query: ConversationSearch): Promise<ConversationPage> {
    const { column, asc } = SORTS[query.sort];
    const { clauses, params } = this.where(query);
    if (query.pageId !== undefined) {
      const cursor = this.byId.get(query.pageId) as ConversationRow | undefined;
      const matches = cursor && (query.ownerId === undefined || cursor.owner_id === query.ownerId);
      if (!matches) throw new UnknownCursorError(query.pageId);
      clauses.push(`(${column}, id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(cursor[column as 'created_at' | 'updated_at'], cursor.id);
    }
    const order = asc ? 'ASC' : 'DESC';
    const sql =
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations${whereSql(clauses)}` +
      ` ORDER BY ${column} ${order}, id ${order} LIMIT ?`;
    return readPage(query.limit, (count) =>
      (this.statements.get(sql).all(...params, count) as ConversationRow[]).map(toRecord),
    );
  }

  async count(filter: ConversationFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT count(*) FROM conversations${whereSql(clauses)}`;
    return this.statements
      .get(sql)
      .pluck()
      .get(...params) as number;
  }
}

class SqliteSettings implements SettingsStore {
  private readonly select: Database.Statement;
  private readonly upsert: Database.Statement;
  constructor(
    db: Database.Database,
    private readonly locks: LocalLocks,
  ) {
    this.select = db.prepare('SELECT document FROM settings WHERE user_id = ?').pluck();
    this.upsert = db.prepare(
      'INSERT INTO settings (user_id, document) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET document = excluded.document',
    );
  }
  async get(userId: string): Promise<string | null> {
    return (this.select.get(userId) as string | undefined) ?? null;
  }
  async put(userId: string, document: string): Promise<void> {
    this.upsert.run(userId, document);
  }
  exclusive<T>(userId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(`settings:${userId}`, work);
  }
}

export type SqliteStoreOptions = ({ path: string } | { memory: true }) & {
  /** Whether more appends are about to come: their group may stay open for them (write-group.ts). */
  holdWritesOpen?: () => boolean;
};

/**
 * better-sqlite3's compiled addon, named rather than found: dist/ bundles the package's JavaScript
 * (scripts/build.mjs), whose own search for the addon starts from its caller's file, the bundle.
 * Named, it also skips that search (~1.5 ms of the first open). Resolved on the first open, so a
 * server on PostgreSQL never needs the addon.
 */
const sqliteAddon = () =>
  createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');

export function openSqliteStore(options: SqliteStoreOptions): Store {
  const db = new Database('path' in options ? options.path : ':memory:', { nativeBinding: sqliteAddon() });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // An 8 MB page cache (grown only as used) holds the index pages of a 100k-event conversation; the
  // event rows a read touches come from the OS's file cache. A 64 MB one sat resident after a single
  // read of a long conversation (+58 MB of RSS for 100k events) and bought no measurable batch-get
  // speed. Rarer checkpoints (every ~40 MB of WAL) make appends cheaper.
  db.pragma('cache_size = -8192');
  db.pragma('wal_autocheckpoint = 10000');
  migrate(db);
  const statements = new StatementCache(db);
  const group = new WriteGroup(db, options.holdWritesOpen);
  const conversations = new SqliteConversations(db, statements, group);
  conversations.finishDeletes();
  const events = new SqliteEvents(
    db,
    statements,
    (id, patch) => conversations.patch(id, patch),
    (record) => conversations.insertRow(record),
    group,
  );
  conversations.onDelete = (id) => events.forget(id);
  // The file has one writer process, so turns within the process are turns everywhere.
  const locks = new LocalLocks();
  const settings = new SqliteSettings(db, locks);
  const documents = new Map<DocumentKind, DocumentStore<Document>>();
  // No one reads what is not committed, nor writes past it (see Calls).
  const first = 'commits the group first';
  const apart = 'reads no grouped table';
  return {
    conversations: port<ConversationStore>(conversations, group, {
      create: first,
      get: first,
      getMany: first,
      owner: first,
      children: first,
      update: first,
      delete: first,
      search: first,
      count: first,
    }),
    events: port<EventStore>(events, group, {
      append: 'grouped',
      create: 'grouped',
      getManyJson: first,
      get: first,
      search: first,
      count: first,
      exists: first,
      after: first,
      range: first,
      lastSeq: first,
      getManyOfOwner: first,
      searchOfOwner: first,
      countOfOwner: first,
    }),
    // A start reads its owner's settings: were that a commit, no two starts would share one.
    settings: port<SettingsStore>(settings, group, { get: apart, put: first, exclusive: apart }),
    documents<T extends Document>(kind: DocumentKind): DocumentStore<T> {
      let table = documents.get(kind);
      if (!table) {
        table = port<DocumentStore<Document>>(new DocumentTable(db, statements, kind), group, {
          put: first,
          get: apart,
          getMany: apart,
          delete: first,
          search: apart,
          count: apart,
        });
        documents.set(kind, table);
      }
      return table as unknown as DocumentStore<T>;
    },
    exclusive: (name, work) => locks.run(name, work),
    async close() {
      group.commit();
      if (db.open) db.close();
    },
  };
}
