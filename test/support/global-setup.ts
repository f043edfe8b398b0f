// Builds dist/ once before the suite, so tests can start the real `agentd` binary. The run gets a
// temp folder of its own (TMPDIR, inherited by the test workers and every process they start): at
// the end, whatever is still in it is a leak, reported by name, and the folder is removed. A test
// file removes what it makes itself (test/support/cleanup.ts); this is the backstop, and it never
// touches what other runs or programs keep in the system's temp folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'agentd-vitest-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(runDir);
    if (left.length > 0)
      process.stderr.write(`Left in the temp folder by the tests (now removed): ${left.join(', ')}\n`);
    rmSync(runDir, { recursive: true, force: true });
  };
}
