// Reads a zip's entries (names and contents) from its central directory, for tests that check an
// archive the server made: stored or deflated entries; ZIP64's end records (past 65,535 entries).
import { inflateRawSync } from 'node:zlib';

const signature = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
};

/** Where the central directory starts and how many entries it holds, from the end records. */
function directory(zip: Buffer): { count: number; at: number } {
  const end = zip.lastIndexOf(signature(0x06054b50));
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  const at = zip.readUInt32LE(end + 16);
  if (count !== 0xffff && at !== 0xffffffff) return { count, at };
  // ZIP64: the locator, just before the end record, says where ZIP64's end record is.
  const locator = end - 20;
  if (zip.readUInt32LE(locator) !== 0x07064b50) throw new Error('ZIP64 end without its locator');
  const record = Number(zip.readBigUInt64LE(locator + 8));
  if (zip.readUInt32LE(record) !== 0x06064b50) throw new Error('bad ZIP64 end of central directory');
  return { count: Number(zip.readBigUInt64LE(record + 32)), at: Number(zip.readBigUInt64LE(record + 48)) };
}

export function zipEntries(zip: Buffer): Map<string, Buffer> {
  let { count, at } = directory(zip);
  const entries = new Map<string, Buffer>();
  for (; count > 0; count--) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataAt, dataAt + compressedSize);
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
