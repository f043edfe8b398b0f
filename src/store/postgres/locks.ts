// `exclusive` across every process sharing the database: a session advisory lock, keyed by a hash
// of the name, held on a connection of the lock pool while the work runs. Within the process the
// callers of one name queue first, so a process holds at most one connection per name.
import type pg from 'pg';
import { LocalLocks } from '../locks.js';

const KEY = 'hashtextextended($1, 0)';

export class PgLocks {
  private readonly local = new LocalLocks();
  constructor(private readonly pool: pg.Pool) {}

  run<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.local.run(name, async () => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(`SELECT pg_advisory_lock(${KEY})`, [name]);
        try {
          return await work();
        } finally {
          // A connection that cannot unlock is dropped, which frees its locks on the server.
          await client.query(`SELECT pg_advisory_unlock(${KEY})`, [name]).catch((error: Error) => {
            broken = error;
          });
        }
      } catch (error) {
        broken ??= error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }
}
