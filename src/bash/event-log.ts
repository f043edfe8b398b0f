// The bash events, kept in memory and bounded: at most `maxEvents` events and `maxChars` characters
// of output; the oldest go first. They live in memory rather than the store because they are a
// command's transient output for the caller polling it (OpenHands never shows them to the agent),
// the commands themselves die with the server, and a cap in memory bounds them without a cleanup job.
// Each event is its owner's, the user whose key started the command: the reads and the clear of one
// user see only theirs. The bounds are the server's, over every user.
//
// A read answers at most `maxPageBytes` of JSON: the log may hold 64 Mi characters in 1 Mi chunks and
// JSON escaping makes a control character 6 bytes (NUL is \u0000), so 100 events could be a response
// of hundreds of MB, built in one blocking JSON.stringify (or past V8's longest string: a 500).
import type { BashEvent, BashEventPage, BashSearch } from './schemas.js';

interface Entry {
  /** Position in append order; the page cursor, so a cursor survives the eviction of older events. */
  seq: number;
  event: BashEvent;
  chars: number;
  owner: string;
  /** The event's JSON size in UTF-8 bytes, measured on the first read that needs it. */
  bytes?: number;
}

export class InvalidPageIdError extends Error {
  constructor() {
    super('Invalid page_id: use the next_page_id of a previous page');
  }
}

export class BatchTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(
      `The requested events add up to more than ${maxBytes} bytes of JSON; ask for fewer ids at a time ` +
        '(an event alone is always answered)',
    );
    this.name = 'BatchTooLargeError';
  }
}

const PAGE_ID = /^[0-9]{1,15}$/;

function charsOf(event: BashEvent): number {
  if (event.kind === 'BashOutput') return (event.stdout?.length ?? 0) + (event.stderr?.length ?? 0);
  if (event.kind === 'BashCommand') return event.command.length;
  return event.detail.length;
}

export class BashEventLog {
  private entries: Entry[] = [];
  /** Index of the oldest live entry in `entries` (eviction moves it; the array is compacted now and then). */
  private head = 0;
  private readonly byId = new Map<string, Entry>();
  private nextSeq = 0;
  private chars = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxChars: number,
    /** JSON bytes a page's items may add up to; one event larger than this is answered alone. */
    private readonly maxPageBytes: number,
  ) {}

  get size(): number {
    return this.entries.length - this.head;
  }

  append(event: BashEvent, owner: string): void {
    const entry = { seq: this.nextSeq++, event, chars: charsOf(event), owner };
    this.entries.push(entry);
    this.byId.set(event.id, entry);
    this.chars += entry.chars;
    while (this.size > 1 && (this.size > this.maxEvents || this.chars > this.maxChars)) {
      const oldest = this.entries[this.head++]!;
      this.byId.delete(oldest.event.id);
      this.chars -= oldest.chars;
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** The owner's event with this id (32 hex digits or dashed), or null. */
  get(id: string, owner: string): BashEvent | null {
    return this.entryOf(id, owner)?.event ?? null;
  }

  private entryOf(id: string, owner: string): Entry | null {
    const entry = this.byId.get(id.replaceAll('-', '').toLowerCase());
    return entry?.owner === owner ? entry : null;
  }

  /**
   * The owner's events with these ids, one item per id in order (null where missing), as OpenHands'
   * batch get answers. A repeated id is answered again, and its bytes count again, since the response
   * carries it again. Throws BatchTooLargeError past
   * `maxPageBytes` unless the answer holds one event.
   */
  batch(ids: readonly string[], owner: string): (BashEvent | null)[] {
    let bytes = 0;
    let events = 0;
    const items = ids.map((id) => {
      const entry = this.entryOf(id, owner);
      if (entry === null) return null;
      bytes += bytesOf(entry) + 1;
      events += 1;
      return entry.event;
    });
    if (events > 1 && bytes > this.maxPageBytes) throw new BatchTooLargeError(this.maxPageBytes);
    return items;
  }

  /** Forgets the owner's events; answers how many. */
  clear(owner: string): number {
    const kept: Entry[] = [];
    let cleared = 0;
    for (let i = this.head; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (entry.owner !== owner) kept.push(entry);
      else {
        this.byId.delete(entry.event.id);
        this.chars -= entry.chars;
        cleared += 1;
      }
    }
    this.entries = kept;
    this.head = 0;
    return cleared;
  }

  /**
   * Filters, then pages: `order__gt` is applied before the page is cut, so a page is never short of
   * `limit` for want of matches; it ends early where its items would pass `maxPageBytes` of JSON (never
   * before its first item), and `next_page_id` names the first event left out, so the next page starts
   * exactly there.
   */
  search(q: BashSearch, owner: string): BashEventPage {
    if (q.pageId !== undefined && !PAGE_ID.test(q.pageId)) throw new InvalidPageIdError();
    const cursor = q.pageId === undefined ? undefined : Number(q.pageId);
    const items: BashEvent[] = [];
    let bytes = 0;
    const step = q.descending ? -1 : 1;
    const last = this.entries.length - 1;
    for (let i = q.descending ? last : this.head; i >= this.head && i <= last; i += step) {
      const entry = this.entries[i]!;
      const { seq, event, owner: of } = entry;
      if (of !== owner) continue;
      if (cursor !== undefined && (q.descending ? seq > cursor : seq < cursor)) continue;
      if (!matches(event, q)) continue;
      if (items.length === q.limit) return { items, next_page_id: String(seq) };
      bytes += bytesOf(entry) + 1;
      if (items.length > 0 && bytes > this.maxPageBytes) return { items, next_page_id: String(seq) };
      items.push(event);
    }
    return { items, next_page_id: null };
  }

  /** Every event of the owner's, oldest first (a socket's resend). */
  all(owner: string): BashEvent[] {
    return this.entries
      .slice(this.head)
      .filter((e) => e.owner === owner)
      .map((e) => e.event);
  }
}

function bytesOf(entry: Entry): number {
  entry.bytes ??= Buffer.byteLength(JSON.stringify(entry.event));
  return entry.bytes;
}

function matches(event: BashEvent, q: BashSearch): boolean {
  if (q.kind !== undefined && event.kind !== q.kind) return false;
  if (q.commandId !== undefined && (event.kind !== 'BashOutput' || event.command_id !== q.commandId))
    return false;
  if (q.timestampGte !== undefined && event.timestamp < q.timestampGte) return false;
  if (q.timestampLt !== undefined && event.timestamp >= q.timestampLt) return false;
  if (q.orderGt !== undefined && event.kind === 'BashOutput' && event.order <= q.orderGt) return false;
  return true;
}
