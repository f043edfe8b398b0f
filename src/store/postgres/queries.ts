// Every query goes through here as a named prepared statement: PostgreSQL parses and plans each
// distinct text once per connection. Names come from the text; the search texts vary with the
// filters given, a bounded set.
import type pg from 'pg';

export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `agentd_${names.size}`;
    names.set(text, name);
  }
  return name;
}

export async function query<R extends pg.QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const result = await db.query<R>({
    name: nameOf(text),
    text,
    values: text.startsWith('SELECT') && values.some(holdsNul) ? values.map(comparable) : values,
  });
  return result.rows;
}

/**
 * PostgreSQL's text holds no U+0000 (it refuses such a parameter, which was a 500), so in a read a
 * string that has one equals no stored text: it is compared as NULL, which matches nothing, as SQLite
 * finds nothing for it. A write still refuses it.
 */
function comparable(value: unknown): unknown {
  if (!holdsNul(value)) return value;
  return typeof value === 'string' ? null : (value as unknown[]).map(comparable);
}

/** A string with U+0000, or an array holding one (most reads have none: their values pass as they are). */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some(holdsNul);
}

/** Rows changed by a statement. */
export async function changes(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  const result = await db.query({ name: nameOf(text), text, values });
  return result.rowCount ?? 0;
}
