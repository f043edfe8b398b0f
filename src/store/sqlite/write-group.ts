// Group commit for the embedded store's appends. Each transaction of its own writes every page it
// touched to the WAL (a start: ~14 pages, two write calls each), though most of them are the same
// few pages of the tables' and indexes' ends: appends that come together share one transaction and
// write those pages once. Each append after the group's first is a savepoint of its transaction (one
// that fails is rolled back alone; the first needs none: failing, it leaves nothing else to keep) and
// is answered only once the group is committed, so nothing is told stored, published or cached
// before it is; a failed commit fails every append of the group. The statements that frame a group
// are prepared once: a lone append (an agent's step) costs BEGIN and COMMIT, as a transaction of its
// own did.
//
// Reads never see what is not committed: every other call of the store commits the open group
// first (store.ts wraps them), so a reader that saw a row can rely on it. The group is committed once
// the work that opened it is done, or turns of the loop later while `holdOpen()` says more appends
// are about to come (the server: starts waiting for their turn), up to a size and an age.
import { setImmediate } from 'node:timers';
import type Database from 'better-sqlite3';

/** Appends in one group at most, and how long it may stay open while `holdOpen` says so. */
const MAX_MEMBERS = 64;
const MAX_OPEN_MS = 20;

interface Member {
  committed(): void;
  failed(error: unknown): void;
}

/** The statements that frame a group and its members, prepared once. */
function framing(db: Database.Database) {
  const prepare = (sql: string) => db.prepare(sql);
  return {
    begin: prepare('BEGIN'),
    commit: prepare('COMMIT'),
    rollback: prepare('ROLLBACK'),
    savepoint: prepare('SAVEPOINT member'),
    release: prepare('RELEASE member'),
    rollbackTo: prepare('ROLLBACK TO member'),
  };
}

export class WriteGroup {
  private members: Member[] = [];
  private openedAt = -1;
  private readonly statements: ReturnType<typeof framing>;

  constructor(
    private readonly db: Database.Database,
    private readonly holdOpen: () => boolean = () => false,
  ) {
    this.statements = framing(db);
  }

  /**
   * Runs `write` (its statements, with no transaction of its own) in the open group; resolves with
   * its value once the group is committed. When the group fails after `write` succeeded, `undo`
   * forgets what `write` cached of its rows.
   */
  add<T>(write: () => T, undo: () => void = () => {}): Promise<T> {
    const { rollback, savepoint, release, rollbackTo } = this.statements;
    const first = this.openedAt < 0;
    if (first) this.open();
    else savepoint.run();
    let value: T;
    try {
      value = write();
      if (!first) release.run();
    } catch (error) {
      if (!this.db.inTransaction) {
        // Some errors (a full disk, an I/O error) roll back the whole transaction, not the savepoint:
        // the group's other appends are then lost too, and told so.
        this.fail(error);
      } else if (first) {
        rollback.run();
        this.close();
      } else {
        rollbackTo.run();
        release.run();
      }
      return Promise.reject(error);
    }
    return new Promise<T>((resolve, reject) => {
      this.members.push({
        committed: () => resolve(value),
        failed: (error) => {
          undo();
          reject(error);
        },
      });
      if (this.members.length >= MAX_MEMBERS) this.commit();
    });
  }

  /** Commits the open group, if any (every read and every other write of the store calls it first). */
  commit(): void {
    if (this.openedAt < 0) return;
    try {
      this.statements.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.statements.rollback.run();
      this.fail(error);
      return;
    }
    for (const m of this.close()) m.committed();
  }

  private open(): void {
    this.statements.begin.run();
    this.openedAt = performance.now();
    // Checked once the work that opened it is done (with whatever else it appended meanwhile), not
    // a turn of the loop later: an agent's lone append would wait for the loop to come round.
    queueMicrotask(this.due);
  }

  private readonly due = (): void => {
    if (this.openedAt < 0) return;
    const young = performance.now() - this.openedAt < MAX_OPEN_MS;
    if (young && this.holdOpen()) setImmediate(this.due);
    else this.commit();
  };

  private fail(error: unknown): void {
    for (const m of this.close()) m.failed(error);
  }

  /** Ends the group (committed or lost): its members, and none open. */
  private close(): Member[] {
    const members = this.members;
    this.members = [];
    this.openedAt = -1;
    return members;
  }
}
