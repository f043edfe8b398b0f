// A conversation's trajectory as a zip, laid out as OpenHands' conversation folder is: `<hex>/meta.json`
// (the conversation's info, secrets masked as the API answers it) and `<hex>/events/event-<n>-<id>.json`,
// one file per event, written from the stored JSON a page at a time as the client reads (zip.ts).
import type { Readable } from 'node:stream';
import { type ZipEntry, zipStream } from './zip.js';

export interface TrajectorySource {
  /** The conversation id as 32 hex digits (OpenHands' folder name). */
  hex: string;
  meta: unknown;
  /** Stored events in order, a page at a time. */
  events: () => AsyncIterable<{ id: string; json: string }[]>;
}

async function* entries(source: TrajectorySource): AsyncGenerator<ZipEntry[]> {
  yield [{ name: `${source.hex}/meta.json`, data: Buffer.from(JSON.stringify(source.meta, null, 2)) }];
  let n = 0;
  for await (const page of source.events()) {
    yield page.map((event) => ({
      name: `${source.hex}/events/event-${String(n++).padStart(5, '0')}-${event.id}.json`,
      data: Buffer.from(event.json),
    }));
  }
}

/** The zip stream; pages of events are read from the store as the client reads the zip. */
export function trajectoryZip(source: TrajectorySource): Readable {
  return zipStream(entries(source));
}
