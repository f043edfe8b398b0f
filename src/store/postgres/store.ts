import { conversationWhere, SORTS, type Where, whereSql } from '../filters.js';
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
  type SettingsStore,
  type Store,
  UnknownConversationError,
  UnknownCursorError,
} from '../types.js';
import { PgDocuments } from './documents.js';
import { PgEvents } from './events.js';
import { PgLocks } from './locks.js';
import { migratePostgres } from './migrations.js';
import { changes, type Queryable, query } from './queries.js';
import { numbered, POSTGRES, toCount } from './sql.js';
import { DatabaseUnavailableError } from './url.js';

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

  async children(parentIds: readonly string[]): Promise<Map<string, string[]>> {
    if (parentIds.length === 0) return new Map();
    const rows = await query<{ parent_id: string; id: string }>(
      this.db,
      'SELECT parent_id, id FROM conversations WHERE parent_id = ANY($1::text[]) ORDER BY created_at, id',
      [parentIds],
    );
    return childrenByParent(rows);
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
    return readPage(q.limit, async (count) =>
      (await query<ConversationRow>(this.db, numbered(sql), [...params, count])).map(toRecord),
    );
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
