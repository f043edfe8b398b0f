// The WHERE clauses of searches and counts, shared by the adapters: each filter member becomes one
// clause with `?` for its parameter (PostgreSQL's adapter numbers them). The few spellings that
// differ between engines come from the dialect.
import type {
  ConversationFilter,
  ConversationSearch,
  DocumentFilter,
  EventFilter,
  RangeRead,
} from './types.js';

export type Where = { clauses: string[]; params: unknown[] };

export interface Dialect {
  /** True when the lower-cased `body` column contains the parameter. */
  bodyContains: string;
  /** The case-insensitive LIKE operator. */
  ilike: string;
  /** `column` equals one of a list given as one parameter, and that parameter. */
  anyOf(column: string, values: readonly string[]): [string, unknown];
}

/** The clauses whose parameter is given, with their parameters in the same order. */
export function where(conditions: [string, unknown][]): Where {
  const given = conditions.filter(([, value]) => value !== undefined);
  return { clauses: given.map(([clause]) => clause), params: given.map(([, value]) => value) };
}

/** ` WHERE a AND b`, or nothing when there are no clauses. */
export function whereSql(clauses: readonly string[]): string {
  return clauses.length ? ` WHERE ${clauses.join(' AND ')}` : '';
}

/**
 * ` FROM events WHERE conversation_key = <key> AND …`: one conversation's events that match the
 * clauses (parameters: the key expression's, then the clauses' own, in order).
 */
export function conversationEventsSql(key: string, clauses: readonly string[]): string {
  return ` FROM events${whereSql([`conversation_key = ${key}`, ...clauses])}`;
}

/** The events of every conversation of one owner (the V1 event search), joined to find the owner. */
const OWNER_EVENTS = ' FROM events AS e JOIN conversations AS c ON c.key = e.conversation_key';

/** The timestamp of a page cursor (an event id) among an owner's events: parameters id, owner. */
export const OWNER_CURSOR_SQL = `SELECT e.timestamp${OWNER_EVENTS} WHERE e.id = ? AND c.owner_id = ?`;

/** A page of an owner's events (parameters: owner, the clauses' own, limit), by time then id. */
export function ownerPageSql(clauses: readonly string[], asc: boolean): string {
  const order = asc ? 'ASC' : 'DESC';
  return (
    `SELECT e.seq, e.id, e.kind, e.source, e.timestamp, e.json${OWNER_EVENTS}` +
    whereSql(['c.owner_id = ?', ...clauses]) +
    ` ORDER BY timestamp ${order}, e.id ${order} LIMIT ?`
  );
}

/** How many of an owner's events match (parameters: owner, the clauses' own), as `n`. */
export function ownerCountSql(clauses: readonly string[]): string {
  return `SELECT count(*) AS n${OWNER_EVENTS}${whereSql(['c.owner_id = ?', ...clauses])}`;
}

export function eventWhere(filter: EventFilter, dialect: Dialect): Where {
  return where([
    ['kind = ?', filter.kind],
    ['source = ?', filter.source],
    [dialect.bodyContains, filter.body?.toLowerCase()],
    ['timestamp >= ?', filter.timestampGte],
    ['timestamp < ?', filter.timestampLt],
  ]);
}

/**
 * A range read of one conversation's events (EventStore.range): the SQL, and its parameters after
 * the key expression's (the limit last).
 */
export function rangeSql(key: string, read: RangeRead, dialect: Dialect): { sql: string; params: unknown[] } {
  const bounds = where([
    ['seq > ?', read.afterSeq ?? 0],
    ['seq < ?', read.beforeSeq],
  ]);
  const filter = eventWhere({ kind: read.kind, source: read.source }, dialect);
  const order = read.order === 'asc' ? 'ASC' : 'DESC';
  return {
    sql:
      `SELECT seq, id, json${conversationEventsSql(key, [...bounds.clauses, ...filter.clauses])}` +
      ` ORDER BY seq ${order} LIMIT ?`,
    params: [...bounds.params, ...filter.params, read.limit],
  };
}

export function conversationWhere(filter: ConversationFilter, dialect: Dialect): Where {
  const w = where([
    ['owner_id = ?', filter.ownerId],
    ['execution_status = ?', filter.executionStatus],
    ['sandbox_id = ?', filter.sandboxId],
    [
      `title ${dialect.ilike} ? ESCAPE '\\'`,
      filter.titleContains === undefined ? undefined : `%${escapeLike(filter.titleContains)}%`,
    ],
    ['created_at >= ?', filter.createdAtGte],
    ['created_at < ?', filter.createdAtLt],
    ['updated_at >= ?', filter.updatedAtGte],
    ['updated_at < ?', filter.updatedAtLt],
  ]);
  if (filter.sandboxed !== undefined)
    w.clauses.push(filter.sandboxed ? 'sandbox_id IS NOT NULL' : 'sandbox_id IS NULL');
  if (filter.hasParent !== undefined)
    w.clauses.push(filter.hasParent ? 'parent_id IS NOT NULL' : 'parent_id IS NULL');
  return w;
}

export function documentWhere(filter: DocumentFilter, dialect: Dialect): Where {
  const w = where([
    ['owner_id = ?', filter.ownerId],
    ['ref = ?', filter.ref],
    ['created_at >= ?', filter.createdAtGte],
  ]);
  if (filter.status) {
    const [clause, param] = dialect.anyOf('status', filter.status);
    w.clauses.push(clause);
    w.params.push(param);
  }
  return w;
}

/** `%` and `_` in a LIKE pattern match themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
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
