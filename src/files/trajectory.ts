// A conversation's trajectory as a zip, laid out as OpenHands' conversation folder is: `<hex>/meta.json`
// (the conversation's info, secrets masked as the API answers it) and `<hex>/events/event-<n>-<id>.json`,
// one file per event, written from the stored JSON as events are read (a page at a time).
import type { Readable } from 'node:stream';
import yazl from 'yazl';

export interface TrajectorySource {
  /** The conversation id as 32 hex digits (OpenHands' folder name). */
  hex: string;
  meta: unknown;
  /** Stored events in order, a page at a time. */
  events: () => AsyncIterable<{ id: string; json: string }[]>;
}

/** The zip stream; entries are added as pages of events are read from the store. */
export function trajectoryZip(source: TrajectorySource): Readable {
  const zip = new yazl.ZipFile();
  const stream = zip.outputStream as Readable;
  zip.addBuffer(Buffer.from(JSON.stringify(source.meta, null, 2)), `${source.hex}/meta.json`);
  void (async () => {
    let n = 0;
    for await (const page of source.events()) {
      for (const event of page) {
        const name = `${source.hex}/events/event-${String(n++).padStart(5, '0')}-${event.id}.json`;
        zip.addBuffer(Buffer.from(event.json), name);
      }
    }
    zip.end();
  })().catch((error: Error) => stream.destroy(error));
  return stream;
}
