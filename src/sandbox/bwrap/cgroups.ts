// Per-sandbox cgroups, where this process may create them: a sandbox's processes join
// `agentd-<id>` under agentd's own cgroup of each cgroup v1 controller below (as many containers
// mount them), so a fork bomb or a runaway build stops at the sandbox's limit, also under a root
// agentd (which the process rlimit does not bind). cgroup v2 is left alone: a child cgroup with
// controllers needs a delegated subtree (agentd's own cgroup holds agentd itself), which a plain
// process rarely has. Nothing here is required: a controller that cannot be used is skipped.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The limits of each sandbox's cgroups: controller → [file, value]. */
export const CGROUP_LIMITS = {
  pids: ['pids.max', '4096'],
  memory: ['memory.limit_in_bytes', String(8 * 1024 ** 3)],
} as const;

type Controller = keyof typeof CGROUP_LIMITS;

/** agentd's own cgroup of each v1 controller it is in (`4:memory:/some/path` lines). */
function ownCgroups(): Map<Controller, string> {
  const own = new Map<Controller, string>();
  let text = '';
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return own;
  }
  for (const line of text.split('\n')) {
    const [, controllers, path] = line.split(':');
    for (const name of controllers?.split(',') ?? []) {
      if (name in CGROUP_LIMITS && path) own.set(name as Controller, path);
    }
  }
  return own;
}

export class SandboxCgroups {
  private readonly own = ownCgroups();

  constructor(private readonly root = '/sys/fs/cgroup') {}

  /** The sandbox's cgroup folders (whether or not they exist). */
  private folders(name: string): [Controller, string][] {
    return [...this.own].map(([controller, path]) => [
      controller,
      join(this.root, controller, path, `agentd-${name}`),
    ]);
  }

  /**
   * Creates the sandbox's cgroups with their limits (again, when they exist); answers the
   * `cgroup.procs` files its processes must join, one per controller that could be used.
   */
  prepare(name: string): string[] {
    const procs: string[] = [];
    for (const [controller, folder] of this.folders(name)) {
      const [file, value] = CGROUP_LIMITS[controller];
      try {
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, file), value);
        procs.push(join(folder, 'cgroup.procs'));
      } catch {
        // not writable here (or not this controller): the sandbox runs without this limit
      }
    }
    return procs;
  }

  /** Removes the sandbox's cgroups once its processes are gone (a cgroup with processes stays). */
  async remove(name: string): Promise<void> {
    for (const [, folder] of this.folders(name)) {
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          rmdirSync(folder);
          break;
        } catch (error) {
          // EBUSY: killed processes are still exiting.
          if ((error as NodeJS.ErrnoException).code !== 'EBUSY') break;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    }
  }
}

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * `argv` run by a shell that first moves itself into the cgroups, then execs it (same pid; its
 * children inherit the cgroups). A cgroup it cannot join is skipped, as in `prepare`.
 */
export function inCgroups(procs: readonly string[], argv: readonly string[]): string[] {
  if (procs.length === 0) return [...argv];
  const joins = procs.map((file) => `{ echo $$ > ${quote(file)}; } 2>/dev/null;`).join(' ');
  return ['/bin/sh', '-c', `${joins} exec "$@"`, 'sh', ...argv];
}
