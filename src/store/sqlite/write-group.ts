// Group commit for the embedded store's appends. Each transaction of its own writes every page it
// touched to the WAL (a start: ~14 pages, two write calls each), though most of them are the same
// few pages of the tables' and indexes' ends: appends that come together share one transaction and
// write those pages once. Each append is a savepoint of the group's transaction (one that fails is
// rolled back alone) and is answered only once the group is committed, so nothing is told stored,
// published or cached before it is; a failed commit fails every append of the group.
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

export class WriteGroup {
  private members: Member[] = [];
  private openedAt = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly holdOpen: () => boolean = () => false,
  ) {}

  /**
   * Runs `write` (a better-sqlite3 transaction function: inside the group's transaction it is a
   * savepoint) in the open group; resolves with its value once the group is committed. When the
   * group fails after `write` succeeded, `undo` forgets what `write` cached of its rows.
   */
  add<T>(write: () => T, undo: () => void = () => {}): Promise<T> {
    if (this.openedAt < 0) this.open();
    let value: T;
    try {
      value = write();
    } catch (error) {
      // Some errors (a full disk, an I/O error) roll back the whole transaction, not the savepoint:
      // the group's other appends are then lost too, and told so.
      if (!this.db.inTransaction) this.fail(error);
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
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.fail(error);
      return;
    }
    for (const m of this.close()) m.committed();
  }

  private open(): void {
    this.db.exec('BEGIN');
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
