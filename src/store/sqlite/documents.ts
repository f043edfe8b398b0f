// A table of JSON documents with their indexed members copied into columns: the sandboxes and
// start tasks of the V1 control plane. Upsert by id; cursor pages as for conversations.
import type Database from 'better-sqlite3';
import { documentWhere, SORTS, type Where, whereSql } from '../filters.js';
import { readPage } from '../pages.js';
import { inIdOrder } from '../rows.js';
import {
  type Document,
  type DocumentFilter,
  type DocumentKind,
  type DocumentSearch,
  type DocumentStore,
  UnknownCursorError,
} from '../types.js';
import { SQLITE, type StatementCache } from './sql.js';

type Row = { id: string; owner_id: string; created_at: string; updated_at: string; document: string };

export class DocumentTable<T extends Document> implements DocumentStore<T> {
  private readonly upsert: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly byIds: Database.Statement;
  private readonly remove: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly statements: StatementCache,
    private readonly table: DocumentKind,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO ${table} (id, owner_id, status, ref, created_at, updated_at, document)` +
        ' VALUES (@id, @owner_id, @status, @ref, @created_at, @updated_at, @document)' +
        ' ON CONFLICT (id) DO UPDATE SET status = excluded.status, ref = excluded.ref,' +
        ' updated_at = excluded.updated_at, document = excluded.document',
    );
    this.byId = db.prepare(`SELECT * FROM ${table} WHERE id = ?`);
    this.byIds = db
      .prepare(`SELECT document FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`)
      .pluck();
    this.remove = db.prepare(`DELETE FROM ${table} WHERE id = ?`);
  }

  async put(document: T): Promise<void> {
    this.upsert.run({
      id: document.id,
      owner_id: document.ownerId,
      status: document.status,
      ref: document.ref ?? null,
      created_at: document.createdAt,
      updated_at: document.updatedAt,
      document: JSON.stringify(document),
    });
  }

  async get(id: string): Promise<T | null> {
    const row = this.byId.get(id) as Row | undefined;
    return row ? (JSON.parse(row.document) as T) : null;
  }

  async getMany(ids: readonly string[]): Promise<(T | null)[]> {
    if (ids.length === 0) return [];
    const texts = this.byIds.all(JSON.stringify(ids)) as string[];
    return inIdOrder(
      ids,
      texts.map((text) => JSON.parse(text) as T),
    );
  }

  async delete(id: string): Promise<boolean> {
    return this.remove.run(id).changes > 0;
  }

  private where(filter: DocumentFilter): Where {
    return documentWhere(filter, SQLITE);
  }

  async search(query: DocumentSearch): Promise<{ items: T[]; nextPageId: string | null }> {
    const { column, asc } = SORTS[query.sort];
    const { clauses, params } = this.where(query);
    if (query.pageId !== undefined) {
      const cursor = this.byId.get(query.pageId) as Row | undefined;
      if (!cursor || (query.ownerId !== undefined && cursor.owner_id !== query.ownerId))
        throw new UnknownCursorError(query.pageId);
      clauses.push(`(${column}, id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(cursor[column], cursor.id);
    }
    const order = asc ? 'ASC' : 'DESC';
    const sql = `SELECT document FROM ${this.table}${whereSql(clauses)} ORDER BY ${column} ${order}, id ${order} LIMIT ?`;
    return readPage(query.limit, (count) =>
      (
        this.statements
          .get(sql)
          .pluck()
          .all(...params, count) as string[]
      ).map((text) => JSON.parse(text) as T),
    );
  }

  async count(filter: DocumentFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    return this.statements
      .get(`SELECT count(*) FROM ${this.table}${whereSql(clauses)}`)
      .pluck()
      .get(...params) as number;
  }
}
