// Versioned schema migrations. Each runs once, in order, inside a transaction; the applied
// versions are recorded in schema_migrations. Never edit a shipped migration: add a new one.
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'conversations, events, settings',
    sql: `
      -- key: a small integer the events refer to (smaller, faster indexes than the 36-character id).
      CREATE TABLE conversations (
        key INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        owner_id TEXT NOT NULL,
        title TEXT,
        tags TEXT NOT NULL DEFAULT '{}',
        execution_status TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX conversations_owner_created ON conversations (owner_id, created_at, id);
      CREATE INDEX conversations_owner_updated ON conversations (owner_id, updated_at, id);
      CREATE INDEX conversations_status ON conversations (execution_status);

      CREATE TABLE events (
        conversation_key INTEGER NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        source TEXT,
        timestamp TEXT NOT NULL,
        body TEXT,
        json TEXT NOT NULL
      );
      CREATE UNIQUE INDEX events_seq ON events (conversation_key, seq);
      CREATE UNIQUE INDEX events_id ON events (conversation_key, id);

      CREATE TABLE settings (
        user_id TEXT PRIMARY KEY,
        document TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'V1 control plane: sandboxed conversations, sandboxes, start tasks; event ids unique',
    sql: `
      ALTER TABLE conversations ADD COLUMN sandbox_id TEXT;
      ALTER TABLE conversations ADD COLUMN parent_id TEXT;
      CREATE INDEX conversations_sandbox ON conversations (sandbox_id) WHERE sandbox_id IS NOT NULL;
      CREATE INDEX conversations_parent ON conversations (parent_id) WHERE parent_id IS NOT NULL;

      -- Event ids are UUIDs, unique across conversations: one index serves lookups with and
      -- without the conversation (the V1 /api/v1/events batch get has none).
      DROP INDEX events_id;
      CREATE UNIQUE INDEX events_id ON events (id);

      CREATE TABLE sandboxes (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        status TEXT NOT NULL,
        ref TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        document TEXT NOT NULL
      );
      CREATE INDEX sandboxes_owner_created ON sandboxes (owner_id, created_at, id);
      CREATE INDEX sandboxes_status ON sandboxes (status);

      CREATE TABLE start_tasks (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        status TEXT NOT NULL,
        ref TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        document TEXT NOT NULL
      );
      CREATE INDEX start_tasks_owner_created ON start_tasks (owner_id, created_at, id);
      CREATE INDEX start_tasks_ref ON start_tasks (ref) WHERE ref IS NOT NULL;
    `,
  },
];

export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  const ran: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    })();
    ran.push(m.version);
  }
  return ran;
}
