// Watching processes a test does not own (a conversation's shell, found by its pid): whether one is
// still running, and waiting for a condition that another part of the server makes true later.

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
