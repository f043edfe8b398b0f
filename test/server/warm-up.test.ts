import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runPiecesWhenIdle } from '../../src/server/warm-up.js';

const warmUp = new URL('../../src/server/warm-up.ts', import.meta.url).href;

describe('idle warm-up', () => {
  it('runs every piece on an idle server, one per turn, with no request to wake the loop', async () => {
    // In a process of its own: a listening server and nothing else, so the loop sleeps in its poll
    // unless the warm-up wakes it (in the test's own process, vitest's timers and IPC would).
    const script = `
      import { createServer } from 'node:http';
      import { runPiecesWhenIdle } from ${JSON.stringify(warmUp)};
      const server = createServer().listen(0, '127.0.0.1');
      const ran = [];
      const pieces = [0, 1, 2, 3].map((i) => () => {
        ran.push(i);
        if (ran.length === 4) { console.log(ran.join(',')); server.close(); }
      });
      runPiecesWhenIdle(pieces, 10, () => true);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      // tsx loading under a loaded test run takes seconds; a hang is the failure. No tsx cache left behind.
      { timeout: 20_000, env: { ...process.env, TSX_DISABLE_CACHE: '1' } },
    );
    expect(stdout.trim()).toBe('0,1,2,3');
  });

  it('stops when it is no longer wanted (the server closed)', async () => {
    let wanted = true;
    const ran: number[] = [];
    const pieces = [0, 1, 2].map((i) => () => {
      ran.push(i);
      wanted = false;
    });
    runPiecesWhenIdle(pieces, 0, () => wanted);
    await new Promise((r) => setTimeout(r, 100));
    expect(ran).toEqual([0]);
  });
});
