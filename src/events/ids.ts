// Event ids and timestamps. Ids are dashed UUIDs. Timestamps are ISO 8601 with microseconds in UTC
// and no offset, as OpenHands emits on a UTC host; they strictly increase within the process so
// ordering by timestamp string agrees with append order.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

export function newEventId(): string {
  return randomUUID();
}

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

/** Dashed lower-case form of a UUID given dashed or as 32 hex digits. */
export function dashedUuid(id: string): string {
  const hex = id.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
