// PostgreSQL's spelling of the shared filter clauses, and the numbering of their placeholders.
import type { Dialect } from '../filters.js';

export const POSTGRES: Dialect = {
  bodyContains: 'strpos(body, ?) > 0',
  ilike: 'ILIKE',
  anyOf: (column, values) => [`${column} = ANY(?::text[])`, values],
};

/** The shared clauses use `?`; PostgreSQL numbers its parameters (`$1`, `$2`, …), from `first`. */
export function numbered(sql: string, first = 1): string {
  let n = first;
  return sql.replace(/\?/g, () => `$${n++}`);
}

/** `count(*)` is a bigint, which pg hands over as a string. */
export function toCount(rows: { n: string }[]): number {
  return Number(rows[0]?.n ?? 0);
}
