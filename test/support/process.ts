// Watching processes a test does not own (a conversation's shell, found by its pid): whether one is
// still running, waiting for a condition that another part of the server makes true later, and
// killing what is left running inside a test's folders.
import { readdirSync, readFileSync } from 'node:fs';

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `condition` holds; the test's own timeout bounds the wait. */
export async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Kills (SIGKILL) every process whose command line names a path inside one of `dirs`, and returns
 * them. A server killed with -9 leaves the sandbox agents it started running by design (a restarted
 * control plane adopts them), and so does a test that fails before its own clean-up: whatever still
 * runs inside a test's folders when they are removed is a leftover.
 */
export function killProcessesIn(dirs: readonly string[]): { pid: number; command: string }[] {
  if (dirs.length === 0) return [];
  const killed: { pid: number; command: string }[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return killed; // no /proc: nothing to look through
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // it ended while we looked
    }
    if (!args.some((arg) => dirs.some((dir) => arg === dir || arg.startsWith(`${dir}/`)))) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push({ pid, command: args.join(' ').trim() });
    } catch {
      // already gone
    }
  }
  return killed;
}
