// Builds dist/ once before the suite, so tests can start the real `agentd` binary. The run gets a
// temp folder of its own (TMPDIR, inherited by the test workers and every process they start): at
// the end, whatever still runs inside it or is still in it is a leak, reported by name, then killed
// or removed. A test file undoes what it makes itself (test/support/cleanup.ts); this is the
// backstop, and it never touches what other runs or programs keep in the system's temp folder.
// The binaries the tests start fetch no extensions repository (the CLI's default is GitHub's
// OpenHands/extensions): tests reach loopback only, and the marketplace test names its own.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killProcessesIn } from './process.js';

export default function setup(): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'agentd-vitest-'));
  process.env.TMPDIR = runDir;
  const extensions = process.env.AGENTD_EXTENSIONS_REPO;
  process.env.AGENTD_EXTENSIONS_REPO = '';
  return () => {
    if (extensions === undefined) delete process.env.AGENTD_EXTENSIONS_REPO;
    else process.env.AGENTD_EXTENSIONS_REPO = extensions;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const running = killProcessesIn([runDir]);
    if (running.length > 0)
      process.stderr.write(
        `Left running by the tests (now killed): ${running.map((p) => `${p.pid} ${p.command}`).join('; ')}\n`,
      );
    const left = readdirSync(runDir);
    if (left.length > 0)
      process.stderr.write(`Left in the temp folder by the tests (now removed): ${left.join(', ')}\n`);
    rmSync(runDir, { recursive: true, force: true });
  };
}
