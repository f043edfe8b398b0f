// Mutual exclusion by name within this process: each `run` of a name starts after the previous one
// of that name ended (resolved or failed). The stores' `exclusive` builds on it; PostgreSQL's adds an
// advisory lock so that it holds across every process sharing the database.
export class LocalLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(name: string, work: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(name) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.tails.set(name, tail);
    void tail.then(() => {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    });
    return run;
  }
}
