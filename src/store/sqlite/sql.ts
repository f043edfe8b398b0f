// Small helpers shared by the SQLite adapter's tables.
import type Database from 'better-sqlite3';
import type { Dialect } from '../filters.js';

export const SQLITE: Dialect = {
  bodyContains: 'instr(body, ?) > 0',
  // SQLite's LIKE ignores ASCII case already.
  ilike: 'LIKE',
  anyOf: (column, values) => [`${column} IN (SELECT value FROM json_each(?))`, JSON.stringify(values)],
};

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
