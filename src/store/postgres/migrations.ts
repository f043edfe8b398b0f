// Versioned schema migrations for PostgreSQL. Each runs once, in order, in a transaction, recorded
// in schema_migrations. Start-up holds a session advisory lock around the whole run, so replicas
// starting together migrate once: the first applies, the others wait, then find nothing to do.
// Never edit a shipped migration: add a new one.
//
// Text columns that are compared or sorted are COLLATE "C": byte order, as in SQLite, so cursors
// and ranges mean the same on both engines whatever the database's default collation.
import type pg from 'pg';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** The advisory lock key of the migration run (any fixed number; this one spells "agentd"). */
const MIGRATION_LOCK = 0x6167656e7464;

export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    name: 'conversations, events, settings, sandboxes, start tasks',
    sql: `
      -- key: a small integer the events refer to (smaller, faster indexes than the 36-character id).
      -- last_seq: the conversation's last event sequence number; an append locks the row while it
      -- moves it, so concurrent writers (on any replica) get gap-free numbers.
      CREATE TABLE conversations (
        key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text COLLATE "C" NOT NULL UNIQUE,
        owner_id text COLLATE "C" NOT NULL,
        title text,
        tags text NOT NULL DEFAULT '{}',
        execution_status text NOT NULL,
        state text NOT NULL DEFAULT '{}',
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        sandbox_id text,
        parent_id text,
        last_seq integer NOT NULL DEFAULT 0
      );
      CREATE INDEX conversations_owner_created ON conversations (owner_id, created_at, id);
      CREATE INDEX conversations_owner_updated ON conversations (owner_id, updated_at, id);
      CREATE INDEX conversations_status ON conversations (execution_status);
      CREATE INDEX conversations_sandbox ON conversations (sandbox_id) WHERE sandbox_id IS NOT NULL;
      CREATE INDEX conversations_parent ON conversations (parent_id) WHERE parent_id IS NOT NULL;

      -- json: the event exactly as it goes on the wire, so readers answer without re-serializing.
      -- body: a MessageEvent's text, lower-cased, for the body filter.
      CREATE TABLE events (
        conversation_key bigint NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
        seq integer NOT NULL,
        id text COLLATE "C" NOT NULL,
        kind text NOT NULL,
        source text,
        timestamp text COLLATE "C" NOT NULL,
        body text,
        json text NOT NULL,
        PRIMARY KEY (conversation_key, seq)
      );
      CREATE UNIQUE INDEX events_id ON events (id);

      CREATE TABLE settings (
        user_id text PRIMARY KEY,
        document text NOT NULL
      );

      CREATE TABLE sandboxes (
        id text COLLATE "C" PRIMARY KEY,
        owner_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        ref text,
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        document text NOT NULL
      );
      CREATE INDEX sandboxes_owner_created ON sandboxes (owner_id, created_at, id);
      CREATE INDEX sandboxes_status ON sandboxes (status);

      CREATE TABLE start_tasks (
        id text COLLATE "C" PRIMARY KEY,
        owner_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        ref text,
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        document text NOT NULL
      );
      CREATE INDEX start_tasks_owner_created ON start_tasks (owner_id, created_at, id);
      CREATE INDEX start_tasks_ref ON start_tasks (ref) WHERE ref IS NOT NULL;
    `,
  },
  {
    version: 2,
    name: 'conversation leases (which replica runs a conversation; src/cluster)',
    sql: `
      CREATE TABLE agentd_conversation_leases (
        conversation_id text PRIMARY KEY,
        replica_id text NOT NULL,
        expires_at timestamptz NOT NULL
      );
    `,
  },
];

/** Applies the migrations not applied yet; returns the versions this call applied. */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)',
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((r) => r.version));
      const ran: number[] = [];
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
            [m.version, m.name, new Date().toISOString()],
          );
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        ran.push(m.version);
      }
      return ran;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
