// files/zip.ts, the streamed zip writer behind download-trajectory: read back by the tests' reader and by
// Debian's unzip; a trajectory's zip is held back by a reader that does not read.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { trajectoryZip } from '../../src/files/trajectory.js';
import { type ZipEntry, zipStream } from '../../src/files/zip.js';
import { tempDir } from '../support/server.js';
import { zipEntries } from '../support/zip.js';

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('zipStream', () => {
  it('writes entries that unzip reads back whole, with UTF-8 names and empty files', async () => {
    const entries: ZipEntry[] = [
      { name: 'a/plain.json', data: Buffer.from('{"x":1}') },
      { name: 'a/empty.txt', data: Buffer.alloc(0) },
      { name: 'a/été 日本.txt', data: Buffer.from('é'.repeat(10_000)) },
    ];
    const zip = await bytesOf(
      zipStream(
        (async function* () {
          yield entries.slice(0, 2);
          yield [];
          yield entries.slice(2);
        })(),
      ),
    );
    const read = zipEntries(zip);
    expect([...read.keys()]).toEqual(entries.map((e) => e.name));
    for (const entry of entries) expect(read.get(entry.name)).toEqual(entry.data);
    const file = join(tempDir('agentd-zip-'), 'small.zip');
    writeFileSync(file, zip);
    expect(execFileSync('unzip', ['-tqq', file]).toString()).toBe('');
    expect(execFileSync('unzip', ['-Z1', file]).toString().split('\n').filter(Boolean)).toEqual(
      entries.map((e) => e.name),
    );
  });

  it('is an empty zip without entries', async () => {
    const zip = await bytesOf(zipStream((async function* () {})()));
    expect(zip.length).toBe(22);
    expect(zipEntries(zip).size).toBe(0);
  });

  it('reads its source only as fast as it is read, and stops reading it when destroyed', async () => {
    let pulled = 0;
    let closed = false;
    const stream = trajectoryZip({
      hex: 'ab'.repeat(16),
      meta: {},
      async *events() {
        try {
          for (let i = 0; i < 1_000; i++) {
            pulled++;
            yield Array.from({ length: 100 }, (_, j) => ({
              id: `${i}-${j}`,
              json: JSON.stringify({ i, j, pad: 'x'.repeat(400) }),
            }));
          }
        } finally {
          closed = true;
        }
      },
    });
    // A reader that reads three chunks (meta.json's, then two pages'), then nothing more.
    for (let i = 0; i < 3; i++) {
      while (stream.read() === null) await new Promise((resolve) => stream.once('readable', resolve));
    }
    await sleep(200);
    expect(pulled).toBeGreaterThanOrEqual(2);
    expect(pulled).toBeLessThanOrEqual(4);
    const held = pulled;
    stream.destroy();
    await sleep(50);
    expect(closed).toBe(true);
    expect(pulled).toBe(held);
  });
});
