// The active branch (branches.ts) read from the store from one end, only as far as a question needs:
// the agent's last answer, whether the branch has a system prompt, the actions a crash left without
// an answer. Reading and parsing a 100k-event log whole to look at its end took 0.6–1 s, all of it
// synchronous with SQLite: /health waited as long.
import { PendingScan, recoverAfterCrash } from '../agent/index.js';
import type { AnyEvent } from '../events/index.js';
import { loopTurns } from '../loop/index.js';
import type { EventJson, EventStore, RangeRead } from '../store/index.js';
import { type BranchPoint, pointOf } from './branches.js';
import { UnknownEventError } from './errors.js';
import { finalResponseOf } from './state.js';

/** How many events a read by kind scans at most before the event loop gets a turn (~10 ms on SQLite). */
const WINDOW = 4096;

/** Consecutive events of the log on the active branch, numbered `from` to `to`. */
interface Run {
  from: number;
  to: number;
}

export class BranchReads {
  constructor(
    private readonly events: EventStore,
    private readonly conversationId: string,
    private readonly points: readonly BranchPoint[] | undefined,
  ) {}

  /** finalResponseOf (state.ts) of the branch: its newest finish action or agent message. */
  async finalResponse(): Promise<string> {
    for await (const part of this.windows('desc')) {
      const [message] = await this.read(part, 'desc', 1, { kind: 'MessageEvent', source: 'agent' });
      // Only a finish newer than that message answers instead. The store cannot filter on the
      // action's kind, but an ActionEvent's text holds the string "FinishAction" only if it is one
      // (a quote inside a JSON string is escaped), so the others are not parsed.
      const newer = { from: message ? message.seq + 1 : part.from, to: part.to };
      for (const action of await this.read(newer, 'desc', WINDOW, { kind: 'ActionEvent' })) {
        if (!action.json.includes('"FinishAction"')) continue;
        const event = JSON.parse(action.json) as { action?: { kind?: string } };
        if (event.action?.kind === 'FinishAction') return finalResponseOf([event]);
      }
      if (message) return finalResponseOf([JSON.parse(message.json)]);
    }
    return '';
  }

  /** Whether an event of `kind` is on the branch; looked for from the root, where a system prompt is. */
  async has(kind: string): Promise<boolean> {
    // Without branch points the branch is the whole log: one question, which stops at the first match
    // (a system prompt is the first event); a log without one is scanned whole in that one statement.
    if (!this.points?.length) return this.events.exists(this.conversationId, { kind });
    for await (const part of this.windows('asc'))
      if ((await this.read(part, 'asc', 1, { kind })).length > 0) return true;
    return false;
  }

  /**
   * recoverAfterCrash (agent/) of the branch: read back only to where its scan stops (the latest
   * batch of actions, or the agent's last reply), not the whole history.
   */
  async recoverAfterCrash(): Promise<AnyEvent[]> {
    const scan = new PendingScan();
    const tail: AnyEvent[] = [];
    for await (const stored of this.newestFirst()) {
      const event = JSON.parse(stored.json) as AnyEvent;
      tail.push(event);
      if (!scan.take(event)) break;
    }
    return recoverAfterCrash(tail.reverse());
  }

  /**
   * Every event of the branch oldest first, `page` events at a time, with a turn of the event loop
   * between two pages (a runtime's history read back: history-read.ts).
   */
  async *oldestFirst(page: number): AsyncGenerator<EventJson[]> {
    const runs = (await this.runs()).reverse();
    let first = true;
    for (const run of runs) {
      for (let from = run.from; from <= run.to; ) {
        if (!first) await loopTurns.turn('background');
        first = false;
        const events = await this.read({ from, to: run.to }, 'asc', page);
        if (events.length === 0) break;
        yield events;
        from = events[events.length - 1]!.seq + 1;
      }
    }
  }

  /**
   * The branch as runs of the log, newest first: activeBranch's walk (branches.ts), over the store.
   * The log's length is its last sequence number (they are gap-free).
   */
  private async runs(): Promise<Run[]> {
    const last = await this.events.lastSeq(this.conversationId);
    const points = this.points;
    if (!points?.length) return last > 0 ? [{ from: 1, to: last }] : [];
    const head = points[points.length - 1]!;
    let end: number | undefined = last;
    if (head.seq > last) {
      // HEAD moved and nothing was appended since: the branch ends at the event it moved to.
      if (head.parent_event_id === null) return [];
      end = await this.seqOf(head.parent_event_id);
      if (end === undefined) throw new UnknownEventError('event_id', head.parent_event_id);
    }
    const runs: Run[] = [];
    const visited = new Set<number>();
    // A parent is always older than its branch, so a walk ends; the set guards a hand-edited record.
    while (end !== undefined && !visited.has(end)) {
      visited.add(end);
      const point = pointOf(points, end);
      runs.push({ from: point?.seq ?? 1, to: end });
      end = point?.parent_event_id ? await this.seqOf(point.parent_event_id) : undefined;
    }
    return runs;
  }

  private async seqOf(eventId: string): Promise<number | undefined> {
    return (await this.events.get(this.conversationId, eventId))?.seq;
  }

  /**
   * The branch cut into parts of at most WINDOW sequence numbers, in `order`, with a turn of the event
   * loop between two: a read by kind scans every event of its part (the store has no index on kind),
   * and a SQLite read is synchronous, so every other request waits for it.
   */
  private async *windows(order: RangeRead['order']): AsyncGenerator<Run> {
    const runs = await this.runs();
    if (order === 'asc') runs.reverse();
    let first = true;
    for (const run of runs) {
      for (let done = 0; done <= run.to - run.from; done += WINDOW) {
        if (!first) await loopTurns.turn('background');
        first = false;
        yield order === 'desc'
          ? { from: Math.max(run.from, run.to - done - WINDOW + 1), to: run.to - done }
          : { from: run.from + done, to: Math.min(run.to, run.from + done + WINDOW - 1) };
      }
    }
  }

  /**
   * Every event of the branch newest first, a page at a time: small first (most questions are
   * answered near the end), larger while the reader goes on, with a turn of the event loop between
   * two pages.
   */
  private async *newestFirst(): AsyncGenerator<EventJson> {
    let limit = 16;
    for (const run of await this.runs()) {
      for (let to = run.to; to >= run.from; ) {
        const page = await this.read({ from: run.from, to }, 'desc', limit);
        yield* page;
        if (page.length < limit) break;
        to = page[page.length - 1]!.seq - 1;
        limit = Math.min(limit * 4, 1024);
        await loopTurns.turn('background');
      }
    }
  }

  private read(
    run: Run,
    order: RangeRead['order'],
    limit: number,
    filter: Pick<RangeRead, 'kind' | 'source'> = {},
  ): Promise<EventJson[]> {
    return this.events.range(this.conversationId, {
      ...filter,
      afterSeq: run.from - 1,
      beforeSeq: run.to + 1,
      order,
      limit,
    });
  }
}
