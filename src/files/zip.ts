// A zip written as a stream, entry after entry, in time and memory linear in its entries: what the
// trajectory of a long conversation needs. Each entry is deflated on its own (zlib: in the loop for a
// small one, ~14 µs for a 430-byte event here; on libuv's threads for a large one) and written with its
// sizes in the local header; the central directory (~140 bytes an entry) is what stays in memory
// until the end, as the format requires.
// ZIP64 end records are written when the entries, the directory's size or its offset outgrow the
// classic fields (65,535 entries; 4 GiB), and an entry whose header starts past 4 GiB gets ZIP64's
// offset field.
//
// Written here rather than taken from a library, measured on 100k event-sized entries: yazl (which
// this replaces) scans every earlier entry on each step and deflates every added entry at once, which
// took 80 s and 22 GB of RSS for a 100k-event trajectory; fflate writes no ZIP64 (its 16-bit entry
// count wraps past 65,535); zip-stream took 13.6 s and 670 MB. The format: PKWARE's APPNOTE 6.3.10.
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { loopTurns } from '../loop/index.js';

export interface ZipEntry {
  /** The path inside the zip, `/`-separated (written as UTF-8). */
  name: string;
  data: Buffer;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EXTRA = 0x0001;
/** General-purpose flag bit 11: the name is UTF-8. */
const UTF8_NAME = 0x0800;
const DEFLATE = 8;
/** Version 2.0 (deflate); 4.5 where ZIP64 fields are used. Made by host 3 (Unix), so the mode below counts. */
const VERSION = 20;
const VERSION_ZIP64 = 45;
const MADE_BY_UNIX = 3 << 8;
/** A regular file, rw-r--r--, in the external attributes' high half. */
const FILE_MODE = (0o100644 << 16) >>> 0;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

/** MS-DOS date and time fields (local time, 2-second steps), as zip stores a modification time. */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getFullYear());
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** An entry's name and deflated data, measured before its batch's buffers are laid out. */
interface Packed {
  name: Buffer;
  data: Buffer;
  size: number;
  crc: number;
}

/** Entries this large are deflated on libuv's threads: in the loop, a 60 MB one would hold it ~1 s. */
const OFF_LOOP_BYTES = 64 * 1024;
/** Input deflated in the loop between two of its turns (~150 events, 2–4 ms of zlib here). */
const SLICE_BYTES = 64 * 1024;
const deflateOffLoop = promisify(deflateRaw);

async function pack(entry: ZipEntry): Promise<Packed> {
  const name = Buffer.from(entry.name, 'utf8');
  if (name.length > MAX16) throw new Error(`zip entry name too long: ${entry.name.slice(0, 100)}`);
  if (entry.data.length >= MAX32) throw new Error(`zip entry too large: ${entry.name}`);
  const data =
    entry.data.length >= OFF_LOOP_BYTES ? await deflateOffLoop(entry.data) : deflateRawSync(entry.data);
  return { name, data, size: entry.data.length, crc: crc32(entry.data) };
}

/** Zip64's extra field in a central record: the local header's offset, past 4 GiB. */
const farExtra = (offset: number) => (offset >= MAX32 ? 12 : 0);

/**
 * A batch's local headers and data, and its central directory records, each in one buffer (100k small
 * buffers would cost more than their bytes), for a batch whose first entry starts at `offset`.
 */
function batchRecords(
  entries: Packed[],
  offset: number,
  stamp: { time: number; date: number },
): { locals: Buffer; centrals: Buffer } {
  let localBytes = 0;
  let centralBytes = 0;
  for (const entry of entries) {
    centralBytes += 46 + entry.name.length + farExtra(offset + localBytes);
    localBytes += 30 + entry.name.length + entry.data.length;
  }
  const locals = Buffer.allocUnsafe(localBytes);
  const centrals = Buffer.allocUnsafe(centralBytes);
  let at = 0;
  let c = 0;
  for (const entry of entries) {
    const { name, data } = entry;
    locals.writeUInt32LE(LOCAL_HEADER, at);
    locals.writeUInt16LE(VERSION, at + 4);
    locals.writeUInt16LE(UTF8_NAME, at + 6);
    locals.writeUInt16LE(DEFLATE, at + 8);
    locals.writeUInt16LE(stamp.time, at + 10);
    locals.writeUInt16LE(stamp.date, at + 12);
    locals.writeUInt32LE(entry.crc, at + 14);
    locals.writeUInt32LE(data.length, at + 18);
    locals.writeUInt32LE(entry.size, at + 22);
    locals.writeUInt16LE(name.length, at + 26);
    locals.writeUInt16LE(0, at + 28);
    name.copy(locals, at + 30);
    data.copy(locals, at + 30 + name.length);

    const local = offset + at;
    const extra = farExtra(local);
    const version = extra ? VERSION_ZIP64 : VERSION;
    centrals.writeUInt32LE(CENTRAL_HEADER, c);
    centrals.writeUInt16LE(MADE_BY_UNIX | version, c + 4);
    centrals.writeUInt16LE(version, c + 6);
    locals.copy(centrals, c + 8, at + 6, at + 26); // flags, method, time, date, crc, sizes
    centrals.writeUInt16LE(name.length, c + 28);
    centrals.writeUInt16LE(extra, c + 30);
    centrals.writeUInt16LE(0, c + 32); // comment
    centrals.writeUInt16LE(0, c + 34); // disk
    centrals.writeUInt16LE(0, c + 36); // internal attributes
    centrals.writeUInt32LE(FILE_MODE, c + 38);
    centrals.writeUInt32LE(extra ? MAX32 : local, c + 42);
    name.copy(centrals, c + 46);
    if (extra) {
      centrals.writeUInt16LE(ZIP64_EXTRA, c + 46 + name.length);
      centrals.writeUInt16LE(8, c + 48 + name.length);
      centrals.writeBigUInt64LE(BigInt(local), c + 50 + name.length);
    }
    at += 30 + name.length + data.length;
    c += 46 + name.length + extra;
  }
  return { locals, centrals };
}

/** The end records after a central directory of `count` entries, `size` bytes, starting at `offset`. */
function endRecords(count: number, size: number, offset: number): Buffer {
  const zip64 = count >= MAX16 || size >= MAX32 || offset >= MAX32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(Math.min(count, MAX16), 8);
  end.writeUInt16LE(Math.min(count, MAX16), 10);
  end.writeUInt32LE(Math.min(size, MAX32), 12);
  end.writeUInt32LE(Math.min(offset, MAX32), 16);
  if (!zip64) return end;
  const record = Buffer.alloc(56);
  record.writeUInt32LE(ZIP64_END, 0);
  record.writeBigUInt64LE(44n, 4); // the record's size after this field
  record.writeUInt16LE(MADE_BY_UNIX | VERSION_ZIP64, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(ZIP64_LOCATOR, 0);
  locator.writeBigUInt64LE(BigInt(offset + size), 8);
  locator.writeUInt32LE(1, 16); // disks in all
  return Buffer.concat([record, locator, end]);
}

/**
 * The zip's bytes, a slice of entries at a time, then the central directory and end records. Between
 * slices the writer waits for a turn of the loop: a reader that takes what it is given at once (a
 * socket with room) would otherwise have the whole zip written in one go, with no request answered.
 */
async function* zipBytes(batches: AsyncIterable<Iterable<ZipEntry>>, modified: Date): AsyncGenerator<Buffer> {
  const stamp = dosDateTime(modified);
  const directory: Buffer[] = [];
  let offset = 0;
  let count = 0;
  let slice: Packed[] = [];
  /** Input deflated since the loop's last turn. */
  let sinceTurn = 0;
  const cut = (): Buffer => {
    const { locals, centrals } = batchRecords(slice, offset, stamp);
    directory.push(centrals);
    offset += locals.length;
    count += slice.length;
    slice = [];
    return locals;
  };
  for await (const batch of batches) {
    for (const entry of batch) {
      slice.push(await pack(entry));
      sinceTurn += entry.data.length;
      if (sinceTurn < SLICE_BYTES) continue;
      yield cut();
      await loopTurns.turn('background');
      sinceTurn = 0;
    }
    if (slice.length > 0) yield cut();
  }
  const size = directory.reduce((sum, part) => sum + part.length, 0);
  yield* directory;
  yield endRecords(count, size, offset);
}

/**
 * A zip of the entries, read a batch at a time as the stream is read: a slow reader holds the writer
 * (and the source) back, and a destroyed stream stops reading the source.
 */
export function zipStream(batches: AsyncIterable<Iterable<ZipEntry>>, modified = new Date()): Readable {
  return Readable.from(zipBytes(batches, modified), { objectMode: false });
}
