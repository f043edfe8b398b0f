// Turns on the event loop, so that many conversations running at once neither stall the server nor
// each other. Between two waits on I/O a conversation's work is synchronous (the store is SQLite,
// events are validated and serialized in process, a shell spawns synchronously), and the promises
// that carry it on resolve as microtasks, which run to the end before the loop reads a socket
// again: a burst of conversations whose LLM answers arrive together would do all of their work in
// one go, and /health would wait for all of it. Work that takes a turn instead runs one piece per
// turn of the loop, after the loop has handled whatever I/O is ready, in the order it asked.
import { setImmediate } from 'node:timers';

/** `request`: work a client is waiting for (a start); it goes before `background` (agent steps). */
export type TurnPriority = 'request' | 'background';

export class LoopTurns {
  private readonly queues: Record<TurnPriority, (() => void)[]> = { request: [], background: [] };
  private scheduled = false;

  /**
   * Resolves on a later turn of the loop, when every earlier caller of the same or a higher
   * priority has had its turn: first come, first served within a priority, and one caller per turn,
   * so a conversation that asks again after its turn queues behind every other one waiting.
   */
  turn(priority: TurnPriority = 'background'): Promise<void> {
    return new Promise((resolve) => {
      this.queues[priority].push(resolve);
      this.schedule();
    });
  }

  /** How many callers wait for a turn. */
  get pending(): number {
    return this.queues.request.length + this.queues.background.length;
  }

  /** How many callers of one priority wait for a turn. */
  waiting(priority: TurnPriority): number {
    return this.queues[priority].length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // An immediate queued from the check phase runs on the next turn of the loop, after its poll phase.
    setImmediate(this.release);
  }

  private readonly release = (): void => {
    this.scheduled = false;
    const next = this.queues.request.shift() ?? this.queues.background.shift();
    if (this.pending > 0) this.schedule();
    next?.();
  };
}

/** The process's turns: every conversation it runs shares them. */
export const loopTurns = new LoopTurns();
