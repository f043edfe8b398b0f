// Event ids and timestamps. Ids are dashed UUIDs. Timestamps are ISO 8601 with microseconds in UTC
// and no offset, as OpenHands emits on a UTC host; they strictly increase within the process so
// ordering by timestamp string agrees with append order.
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';

const bytes = new Uint8Array(16);
let lastMs = 0;
let sequence = 0;
/**
 * Random bytes drawn 4 KB at a time, as crypto.randomUUID does: one call into OpenSSL per 512 ids.
 * A call of its own costs ~15 µs in a busy server (~2 µs in a quiet loop), as much as the rest of an
 * id or a sealed secret's IV.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** Fills `length` bytes of `target` from `at` with bytes of the system's CSPRNG, each handed out once. */
export function randomInto(target: Uint8Array, at: number, length: number): void {
  if (poolAt + length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  target.set(pool.subarray(poolAt, poolAt + length), at);
  poolAt += length;
}

/**
 * A UUIDv7: 48 bits of milliseconds, then a 12-bit sequence within the millisecond, then random bits.
 * Ids made by one process sort in creation order, so the store's id index grows at its end instead
 * of at random places (4x faster appends than random v4 ids); they are ordinary dashed UUIDs.
 */
export function newEventId(): string {
  const ms = Date.now();
  if (ms > lastMs) {
    lastMs = ms;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs += 1; // more than 4096 ids in one millisecond: borrow the next one
    sequence = 0;
  }
  randomInto(bytes, 8, 8);
  const t = lastMs;
  bytes[0] = Math.floor(t / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(t / 2 ** 32) & 0xff;
  bytes[2] = (t >>> 24) & 0xff;
  bytes[3] = (t >>> 16) & 0xff;
  bytes[4] = (t >>> 8) & 0xff;
  bytes[5] = t & 0xff;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return dashedHex(bytes);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const idText = Buffer.alloc(36);

/**
 * The dashed hex of 16 bytes as one flat string. Joined from its pieces (`${a}-${b}…`) it was a rope
 * of them, ~370 bytes of heap per id where the flat one takes ~64: a fork's map of 100k new ids
 * took 33 MB. And ~0.3 µs an id instead of ~2.
 */
function dashedHex(from: Uint8Array): string {
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) idText[at++] = 0x2d; // -
    idText[at++] = HEX_DIGITS[from[i]! >> 4]!;
    idText[at++] = HEX_DIGITS[from[i]! & 15]!;
  }
  return idText.toString('latin1');
}

const DASHED_LOWER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let lastMicros = 0;

/** Microseconds since the epoch, strictly increasing across calls. */
function epochMicros(): number {
  const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  lastMicros = now > lastMicros ? now : lastMicros + 1;
  return lastMicros;
}

function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-22T14:52:57.123Z
  return `${iso.slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

export function nowTimestamp(): string {
  return formatMicros(epochMicros());
}

const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Any ISO 8601 date-time (with or without an offset; a date alone means midnight) in the stored form:
 * UTC, microseconds, no offset. A value without an offset is taken as UTC. Null when unparseable.
 */
export function normalizeTimestamp(input: string): string | null {
  const value = /^\d{4}-\d{2}-\d{2}$/.test(input) ? `${input}T00:00:00` : input.trim();
  const m = ISO.exec(value);
  if (!m) return null;
  const [, date, time, fraction = '', zone] = m;
  const seconds = time!.length === 5 ? `${time}:00` : time!;
  const offset =
    !zone || zone.toUpperCase() === 'Z'
      ? 'Z'
      : zone.includes(':')
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const ms = Date.parse(`${date}T${seconds}${offset}`);
  if (Number.isNaN(ms)) return null;
  const micros = Number((fraction + '000000').slice(0, 6));
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}`;
}

/**
 * Dashed lower-case form of a UUID given dashed or as 32 hex digits. Most come dashed and lower-case
 * already (every conversation route's id): those are answered as they are, not joined again into a
 * rope of pieces (see dashedHex).
 */
export function dashedUuid(id: string): string {
  if (DASHED_LOWER.test(id)) return id;
  const hex = id.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
