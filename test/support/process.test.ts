// The test clean-up's net for leftovers: processes running inside a test's folders are killed,
// others are left alone.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { isAlive, killProcessesIn, waitUntil } from './process.js';
import { tempDir } from './server.js';

it('kills the processes whose command line names a path inside the folders, and only those', async () => {
  const inside = tempDir('agentd-leftover-');
  const outside = tempDir('agentd-kept-');
  const script = 'setInterval(() => {}, 1000)';
  const leftover = spawn(process.execPath, ['-e', script, '--', '--data-dir', `${inside}/state`]);
  const kept = spawn(process.execPath, ['-e', script, '--', '--data-dir', outside]);
  try {
    const killed = killProcessesIn([inside]);
    expect(killed.map((p) => p.pid)).toEqual([leftover.pid]);
    await waitUntil(() => leftover.exitCode !== null || leftover.signalCode !== null);
    expect(leftover.signalCode).toBe('SIGKILL');
    expect(isAlive(kept.pid!)).toBe(true);
  } finally {
    kept.kill('SIGKILL');
  }
});
