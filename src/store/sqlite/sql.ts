// Small helpers shared by the SQLite adapter's tables.
import type Database from 'better-sqlite3';
import type { ConversationSearch } from '../types.js';

export type Where = { clauses: string[]; params: unknown[] };

/** The clauses whose parameter is given, with their parameters in the same order. */
export function where(conditions: [string, unknown][]): Where {
  const given = conditions.filter(([, value]) => value !== undefined);
  return { clauses: given.map(([clause]) => clause), params: given.map(([, value]) => value) };
}

export class StatementCache {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}
  get(sql: string): Database.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

/** ` WHERE a AND b`, or nothing when there are no clauses. */
export function whereSql(clauses: readonly string[]): string {
  return clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '';
}

/** The sort orders of conversation and document searches: column and direction. */
export const SORTS: Record<
  ConversationSearch['sort'],
  { column: 'created_at' | 'updated_at'; asc: boolean }
> = {
  CREATED_AT: { column: 'created_at', asc: true },
  CREATED_AT_DESC: { column: 'created_at', asc: false },
  UPDATED_AT: { column: 'updated_at', asc: true },
  UPDATED_AT_DESC: { column: 'updated_at', asc: false },
};
