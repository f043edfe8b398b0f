// Conversation leases in PostgreSQL: one row per conversation a replica holds, with an expiry the
// holder pushes forward (heartbeat). The database clock decides expiry, so replicas' clocks may differ.
import type pg from 'pg';
import { migratePostgres } from '../store/index.js';

export interface Acquired {
  acquired: boolean;
  /** The holder after the attempt. */
  holder: string;
  /** Whether the lease was another replica's before (expired), not free or this replica's. */
  takenOver: boolean;
}

export class PgLeases {
  private constructor(
    private readonly pool: pg.Pool,
    readonly seconds: number,
  ) {}

  static async open(url: string, seconds: number): Promise<PgLeases> {
    const { Pool } = await import('pg'); // named: see llm/clients.ts
    const pool = new Pool({ connectionString: url, max: 4 });
    // An idle client's error (the server restarted) must not crash the process; the next query retries.
    pool.on('error', () => undefined);
    // The lease table is one of the store's migrations; already applied when the store opened first.
    await migratePostgres(pool);
    return new PgLeases(pool, seconds);
  }

  /** Takes the lease if it is free, expired or already this replica's. */
  async acquire(conversationId: string, replicaId: string): Promise<Acquired> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO agentd_conversation_leases VALUES ($1, '', 'epoch') ON CONFLICT DO NOTHING`,
        [conversationId],
      );
      const { rows } = await client.query<{ replica_id: string; expired: boolean }>(
        `SELECT replica_id, expires_at < now() AS expired FROM agentd_conversation_leases
         WHERE conversation_id = $1 FOR UPDATE`,
        [conversationId],
      );
      const row = rows[0]!;
      if (row.replica_id !== replicaId && row.replica_id !== '' && !row.expired) {
        await client.query('COMMIT');
        return { acquired: false, holder: row.replica_id, takenOver: false };
      }
      await client.query(
        `UPDATE agentd_conversation_leases SET replica_id = $2, expires_at = now() + make_interval(secs => $3)
         WHERE conversation_id = $1`,
        [conversationId, replicaId, this.seconds],
      );
      await client.query('COMMIT');
      return {
        acquired: true,
        holder: replicaId,
        takenOver: row.replica_id !== replicaId && row.replica_id !== '',
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The live holder, or null when free or expired. */
  async holder(conversationId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ replica_id: string }>(
      `SELECT replica_id FROM agentd_conversation_leases
       WHERE conversation_id = $1 AND expires_at >= now() AND replica_id <> ''`,
      [conversationId],
    );
    return rows[0]?.replica_id ?? null;
  }

  /** Pushes the expiry of the given leases forward; returns those this replica still holds. */
  async renew(replicaId: string, conversationIds: readonly string[]): Promise<Set<string>> {
    if (conversationIds.length === 0) return new Set();
    const { rows } = await this.pool.query<{ conversation_id: string }>(
      `UPDATE agentd_conversation_leases SET expires_at = now() + make_interval(secs => $3)
       WHERE replica_id = $1 AND conversation_id = ANY($2) RETURNING conversation_id`,
      [replicaId, conversationIds, this.seconds],
    );
    return new Set(rows.map((r) => r.conversation_id));
  }

  /** Conversations whose holder let the lease expire (died or stopped). */
  async expired(limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ conversation_id: string }>(
      `SELECT conversation_id FROM agentd_conversation_leases
       WHERE expires_at < now() AND replica_id <> '' ORDER BY expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.conversation_id);
  }

  /** Drops a lease this replica holds (nothing is left to recover). */
  async release(conversationId: string, replicaId: string): Promise<void> {
    await this.pool.query(
      'DELETE FROM agentd_conversation_leases WHERE conversation_id = $1 AND replica_id = $2',
      [conversationId, replicaId],
    );
  }

  /** Lets every lease of this replica expire now, for another replica to recover (a clean stop). */
  async expireAll(replicaId: string): Promise<void> {
    await this.pool.query(
      `UPDATE agentd_conversation_leases SET expires_at = 'epoch' WHERE replica_id = $1`,
      [replicaId],
    );
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
