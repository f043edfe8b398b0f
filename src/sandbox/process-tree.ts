// Processes as Linux shows them in /proc: a process's descendants (ptys start new sessions, so a
// process group does not hold them all), its state, and signals sent to a whole tree.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name: state, then ppid. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Every descendant of a process, parents before children; empty where /proc is not available. Read
 * down from the root through each thread's `children` file where the kernel has them (a few reads),
 * else from a scan of every process in /proc (~3 ms each on a loaded machine: a burst of 100
 * conversations closing their shells spent ~360 ms of blocked loop in that scan).
 */
export function descendants(root: number): number[] {
  const children = CHILDREN_FILES ? childrenFromTasks : childrenFromScan();
  if (!children) return [];
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children(queue.shift()!)) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

const CHILDREN_FILES = existsSync(`/proc/self/task/${process.pid}/children`);

/** Direct children of a process: the union of its threads' `children` files; none once it is gone. */
function childrenFromTasks(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) {
        if (child) out.push(Number(child));
      }
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

/** Direct children of any process, from one scan of /proc; null where /proc is not available. */
function childrenFromScan(): ((pid: number) => number[]) | null {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields) continue; // the process ended while we looked
    const ppid = Number(fields[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  return (pid) => children.get(pid) ?? [];
}

export type ProcessState = 'running' | 'stopped' | 'gone';

/**
 * The state of a process, `gone` also when it is a zombie or when its command line does not
 * contain `marker` (the pid was reused by another program).
 */
export function processState(pid: number, marker?: string): ProcessState {
  const fields = statFields(pid);
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  if (marker !== undefined) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) return 'gone';
    } catch {
      return 'gone';
    }
  }
  return fields[0] === 'T' || fields[0] === 't' ? 'stopped' : 'running';
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/**
 * Stops a process and everything it started. The root first, so it starts nothing new; then the
 * tree again until a pass finds no process it has not stopped yet (a child may fork meanwhile).
 */
export function stopTree(root: number): void {
  signal(root, 'SIGSTOP');
  const stopped = new Set<number>();
  for (let pass = 0; pass < 10; pass++) {
    const fresh = descendants(root).filter((pid) => !stopped.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      signal(pid, 'SIGSTOP');
      stopped.add(pid);
    }
  }
  awaitStopped([root, ...stopped]);
}

const STOP_WAIT_MS = 500;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * kill() returns before the signal is handled: on a busy machine a process can still read as
 * running for a moment. Waits (briefly, bounded) until /proc shows it stopped, so whoever reads
 * the state next (the sandbox's status) sees the pause that was asked for.
 */
function awaitStopped(pids: number[]): void {
  const deadline = Date.now() + STOP_WAIT_MS;
  for (const pid of pids) {
    while (processState(pid) === 'running' && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 1);
  }
}

/** Continues a stopped tree: the children first, so the root finds them running when it wakes. */
export function continueTree(root: number): void {
  for (const pid of descendants(root).reverse()) signal(pid, 'SIGCONT');
  signal(root, 'SIGCONT');
}

/** Sends a signal to a process and all its descendants. */
export function signalTree(root: number, name: NodeJS.Signals): void {
  for (const pid of [root, ...descendants(root)]) signal(pid, name);
}
