// The V1 control plane's JSON documents (sandboxes, start tasks) in PostgreSQL: upsert by id,
// batch get, cursor pages, as in the SQLite adapter.
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
import { changes, type Queryable, query } from './queries.js';
import { numbered, POSTGRES, toCount } from './sql.js';

type Row = { id: string; owner_id: string; created_at: string; updated_at: string; document: string };

export class PgDocuments<T extends Document> implements DocumentStore<T> {
  constructor(
    private readonly db: Queryable,
    private readonly table: DocumentKind,
  ) {}

  async put(document: T): Promise<void> {
    await query(
      this.db,
      `INSERT INTO ${this.table} (id, owner_id, status, ref, created_at, updated_at, document)` +
        ' VALUES ($1, $2, $3, $4, $5, $6, $7)' +
        ' ON CONFLICT (id) DO UPDATE SET status = excluded.status, ref = excluded.ref,' +
        ' updated_at = excluded.updated_at, document = excluded.document',
      [
        document.id,
        document.ownerId,
        document.status,
        document.ref ?? null,
        document.createdAt,
        document.updatedAt,
        JSON.stringify(document),
      ],
    );
  }

  private async row(id: string): Promise<Row | undefined> {
    const rows = await query<Row>(
      this.db,
      `SELECT id, owner_id, created_at, updated_at, document FROM ${this.table} WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  async get(id: string): Promise<T | null> {
    const row = await this.row(id);
    return row ? (JSON.parse(row.document) as T) : null;
  }

  async getMany(ids: readonly string[]): Promise<(T | null)[]> {
    if (ids.length === 0) return [];
    const rows = await query<{ document: string }>(
      this.db,
      `SELECT document FROM ${this.table} WHERE id = ANY($1::text[])`,
      [ids],
    );
    return inIdOrder(
      ids,
      rows.map(({ document }) => JSON.parse(document) as T),
    );
  }

  async delete(id: string): Promise<boolean> {
    return (await changes(this.db, `DELETE FROM ${this.table} WHERE id = $1`, [id])) > 0;
  }

  private where(filter: DocumentFilter): Where {
    return documentWhere(filter, POSTGRES);
  }

  async search(query_: DocumentSearch): Promise<{ items: T[]; nextPageId: string | null }> {
    const { column, asc } = SORTS[query_.sort];
    const { clauses, params } = this.where(query_);
    if (query_.pageId !== undefined) {
      const cursor = await this.row(query_.pageId);
      if (!cursor || (query_.ownerId !== undefined && cursor.owner_id !== query_.ownerId))
        throw new UnknownCursorError(query_.pageId);
      clauses.push(`(${column}, id) ${asc ? '>=' : '<='} (?, ?)`);
      params.push(cursor[column], cursor.id);
    }
    const order = asc ? 'ASC' : 'DESC';
    const sql = `SELECT document FROM ${this.table}${whereSql(clauses)} ORDER BY ${column} ${order}, id ${order} LIMIT ?`;
    return readPage(query_.limit, async (count) =>
      (await query<{ document: string }>(this.db, numbered(sql), [...params, count])).map(
        (row) => JSON.parse(row.document) as T,
      ),
    );
  }

  async count(filter: DocumentFilter): Promise<number> {
    const { clauses, params } = this.where(filter);
    const sql = `SELECT count(*) AS n FROM ${this.table}${whereSql(clauses)}`;
    return toCount(await query<{ n: string }>(this.db, numbered(sql), params));
  }
}
