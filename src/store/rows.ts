// How a conversation sits in a table row, the same on every engine: tags and state as JSON text.
import type { ConversationPatch, ConversationRecord } from './types.js';

export type ConversationRow = {
  id: string;
  owner_id: string;
  title: string | null;
  tags: string;
  execution_status: string;
  state: string;
  created_at: string;
  updated_at: string;
  sandbox_id: string | null;
  parent_id: string | null;
};

export const EVENT_COLUMNS = 'seq, id, kind, source, timestamp, json';
export const CONVERSATION_COLUMNS =
  'id, owner_id, title, tags, execution_status, state, created_at, updated_at, sandbox_id, parent_id';

export function toRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    title: row.title,
    tags: JSON.parse(row.tags) as Record<string, string>,
    executionStatus: row.execution_status,
    state: JSON.parse(row.state) as Record<string, unknown>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sandboxId: row.sandbox_id,
    parentId: row.parent_id,
  };
}

/**
 * Free text as a column holds it: U+0000 becomes U+FFFD, on both engines alike, since PostgreSQL's
 * text cannot hold it (a title or a message with one failed to store there).
 */
export function textColumn<T extends string | null | undefined>(value: T): T {
  return (
    typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value
  ) as T;
}

/** A record's column values, in CONVERSATION_COLUMNS order. */
export function toRow(record: ConversationRecord): unknown[] {
  return [
    record.id,
    record.ownerId,
    textColumn(record.title),
    JSON.stringify(record.tags),
    record.executionStatus,
    JSON.stringify(record.state),
    record.createdAt,
    record.updatedAt,
    record.sandboxId ?? null,
    record.parentId ?? null,
  ];
}

/** Columns a ConversationPatch may set, with how each value is stored. */
const PATCH_COLUMNS: Record<keyof ConversationPatch, [string, (v: unknown) => unknown]> = {
  title: ['title', (v) => textColumn(v as string | null)],
  tags: ['tags', (v) => JSON.stringify(v)],
  executionStatus: ['execution_status', (v) => v],
  state: ['state', (v) => JSON.stringify(v)],
  updatedAt: ['updated_at', (v) => v],
};

/** The `column = ?` assignments of a patch (only the members it sets) and their values. */
export function patchAssignments(patch: ConversationPatch): { sets: string[]; values: unknown[] } {
  const keys = (Object.keys(patch) as (keyof ConversationPatch)[]).filter((k) => patch[k] !== undefined);
  return {
    sets: keys.map((k) => `${PATCH_COLUMNS[k][0]} = ?`),
    values: keys.map((k) => PATCH_COLUMNS[k][1](patch[k])),
  };
}

/** `children`'s answer from (parent_id, id) rows, which come oldest first. */
export function childrenByParent(rows: readonly { parent_id: string; id: string }[]): Map<string, string[]> {
  const byParent = new Map<string, string[]>();
  for (const { parent_id, id } of rows) {
    const ids = byParent.get(parent_id);
    if (ids) ids.push(id);
    else byParent.set(parent_id, [id]);
  }
  return byParent;
}

/** A batch get's answer: the items in the order of `ids`, null where an id has none. */
export function inIdOrder<T extends { id: string }>(
  ids: readonly string[],
  items: Iterable<T>,
): (T | null)[] {
  const byId = new Map<string, T>();
  for (const item of items) byId.set(item.id, item);
  return ids.map((id) => byId.get(id) ?? null);
}
