// The bwrap confinement: each command of a sandbox (its agent server, a start task's setup step)
// runs under bubblewrap in its own user, mount, PID, IPC, UTS and cgroup namespaces, with every
// capability dropped. It sees the system read-only (/usr, /etc and the /bin, /lib links), this
// Node and this package read-only (to run `agentd agent`), a fresh /tmp, /dev and /proc, and three
// writable folders of its own: the workspace at /workspace/project, its home at /home/agent and the
// agent server's state at /var/lib/agentd. Nothing else of this machine is there: not the control
// plane's data folder, not other sandboxes, not other processes. rlimits always; cgroups where they
// can be made (cgroups.ts).
//
// The network namespace is shared (see the README for why). No --die-with-parent: a sandbox
// outlives a crashed control plane and is adopted by the next one.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, isAbsolute, join, posix, relative } from 'node:path';
import type { Confinement, Wrapped } from '../process/provider.js';
import { descendants } from '../process-tree.js';
import { SandboxError } from '../types.js';
import { inCgroups, SandboxCgroups } from './cgroups.js';

/** Where the sandbox's own folders appear inside it. */
export const SANDBOX_PATHS = {
  workspace: '/workspace/project',
  home: '/home/agent',
  state: '/var/lib/agentd',
} as const;

/**
 * rlimits of every sandbox process (set by `prlimit` before the command starts; they count per
 * sandbox, as each has its own user namespace). Processes count threads too: Chromium and Node
 * use dozens each. The kernel exempts uid 0 from the process limit (an agentd run as root).
 */
export const SANDBOX_LIMITS = { processes: 4096, openFiles: 8192, coreFileSize: 0 } as const;

export interface BwrapOptions {
  /** The bwrap binary (default `bwrap`, found on PATH). */
  bwrap?: string;
  /** Host paths the sandbox reads besides the system: this Node and this package. */
  readOnly?: readonly string[];
  /**
   * Host folders the sandbox must not see even where they lie under one it reads (the control
   * plane's data folder, e.g. when it is inside the package folder): covered with an empty,
   * read-only tmpfs.
   */
  hide?: readonly string[];
  /** Where cgroup hierarchies are mounted (default /sys/fs/cgroup); see cgroups.ts. */
  cgroupRoot?: string;
}

/** Variables naming host files the agent server reads (see INHERITED_ENV); bound read-only. */
const CONFIG_FILES = ['AGENTD_CHROMIUM', 'AGENTD_HOOKS_FILE', 'AGENTD_PRICING_FILE'];

const NAMESPACES = [
  '--unshare-user-try',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--share-net',
  '--hostname',
  'sandbox',
  // No terminal of the control plane to inject keystrokes into (TIOCSTI).
  '--new-session',
  '--cap-drop',
  'ALL',
];

const isUnder = (path: string, folder: string) => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

function etcSecrets(): string[] {
  let sshKeys: string[] = [];
  try {
    sshKeys = readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => `/etc/ssh/${name}`);
  } catch {
    // no ssh server configuration
  }
  return [
    ...['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-'].filter((f) => existsSync(f)),
    ...sshKeys,
  ];
}

/** The system, read-only: /usr and /etc, and /bin, /lib… as the links (or folders) they are here. */
function systemArgs(): { args: string[]; bound: string[] } {
  const args = ['--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc'];
  const bound = ['/usr', '/etc'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(top);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (stat.isDirectory()) {
      args.push('--ro-bind', top, top);
      bound.push(top);
    }
  }
  // The host's password hashes and ssh host keys are readable to a root agentd: shadowed by /dev/null
  // (on a nodev mount, so opening them fails).
  for (const secret of etcSecrets()) args.push('--ro-bind', '/dev/null', secret);
  // A resolv.conf that links out of /etc (systemd-resolved) needs its target.
  try {
    const resolv = realpathSync('/etc/resolv.conf');
    if (!bound.some((b) => isUnder(resolv, b))) args.push('--ro-bind-try', resolv, resolv);
  } catch {
    // no resolv.conf: no DNS inside either
  }
  return { args, bound };
}

/** The arguments shared by every sandbox and by the start-up check, up to the sandbox's own binds. */
function baseArgs(readOnly: readonly string[], hide: readonly string[]): string[] {
  const { args, bound } = systemArgs();
  // Its own /dev, /proc and /tmp first: a file bound below may lie in the host's /tmp.
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const path of readOnly) {
    if (!isAbsolute(path) || bound.some((b) => isUnder(path, b))) continue;
    args.push('--ro-bind-try', path, path);
    bound.push(path);
  }
  for (const path of hide) {
    if (bound.some((b) => isUnder(path, b))) args.push('--tmpfs', path, '--remount-ro', path);
  }
  return [...NAMESPACES, ...args];
}

const limits = [
  'prlimit',
  `--nproc=${SANDBOX_LIMITS.processes}`,
  `--nofile=${SANDBOX_LIMITS.openFiles}`,
  `--core=${SANDBOX_LIMITS.coreFileSize}`,
  '--',
];

/**
 * Why bwrap cannot run sandboxes here, or null when it can: runs `true` the way sandboxes run.
 * Asynchronous, so that a server's start-up goes on while it runs (~30 ms of a child process).
 */
export function bwrapProblem(options: BwrapOptions = {}): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(
      options.bwrap ?? 'bwrap',
      [...baseArgs(options.readOnly ?? [], []), '--remount-ro', '/', '--', ...limits, 'true'],
      { timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'ENOENT'
          ? 'bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)'
          : error.message,
      ),
    );
    child.once('close', (status, signal) => {
      if (status === 0) resolve(null);
      else if (signal) resolve(`bwrap did not finish its check (${signal})`);
      else resolve(Buffer.concat(stderr).toString().trim().split('\n')[0] || `bwrap exited ${status}`);
    });
  });
}

export class BwrapConfinement implements Confinement {
  private readonly bwrap: string;
  private readonly base: () => string[];
  private readonly cgroups: SandboxCgroups;

  constructor(options: BwrapOptions = {}) {
    this.bwrap = options.bwrap ?? 'bwrap';
    this.cgroups = new SandboxCgroups(options.cgroupRoot);
    const readOnly = options.readOnly ?? [];
    const hide = options.hide ?? [];
    // The configuration files are read when a sandbox starts: the variables may change meanwhile.
    this.base = () => {
      const files = CONFIG_FILES.map((name) => process.env[name]).filter((f): f is string => !!f);
      return baseArgs([...readOnly, ...files], hide);
    };
  }

  /** A relative working_dir is in the sandbox's folder, whose `workspace/` is /workspace/project. */
  workingDir(_dir: string, specWorkingDir: string): string {
    if (isAbsolute(specWorkingDir)) return posix.normalize(specWorkingDir);
    const rel = posix.normalize(specWorkingDir);
    const inWorkspace = rel === 'workspace' || rel.startsWith('workspace/') ? rel.slice(9) : rel;
    return posix.join(SANDBOX_PATHS.workspace, inWorkspace);
  }

  stateDir(): string {
    return SANDBOX_PATHS.state;
  }

  /** The sandbox's folders on this machine; a working folder must be in its workspace or home. */
  prepare(dir: string, workingDir: string): void {
    for (const name of ['workspace', 'home', 'state']) mkdirSync(join(dir, name), { recursive: true });
    for (const [name, mount] of [
      ['workspace', SANDBOX_PATHS.workspace],
      ['home', SANDBOX_PATHS.home],
    ] as const) {
      if (isUnder(workingDir, mount)) {
        makeInside(join(dir, name), relative(mount, workingDir));
        return;
      }
    }
    throw new SandboxError(
      `The working folder ${workingDir} is outside the sandbox's writable folders (${SANDBOX_PATHS.workspace}, ${SANDBOX_PATHS.home})`,
    );
  }

  env(): Record<string, string> {
    return { HOME: SANDBOX_PATHS.home, TMPDIR: '/tmp' };
  }

  wrap(dir: string, argv: readonly string[], cwd: string): Wrapped {
    const cgroups = this.cgroups.prepare(basename(dir));
    const sandboxed = [
      this.bwrap,
      ...this.base(),
      '--bind',
      join(dir, 'workspace'),
      SANDBOX_PATHS.workspace,
      '--bind',
      join(dir, 'home'),
      SANDBOX_PATHS.home,
      '--bind',
      join(dir, 'state'),
      SANDBOX_PATHS.state,
      '--remount-ro',
      '/',
      '--chdir',
      cwd,
      '--',
      ...limits,
      ...argv,
    ];
    // bwrap's own folder on this machine; the command's is --chdir inside.
    return { argv: inCgroups(cgroups, sandboxed), cwd: dir };
  }

  release(dir: string): Promise<void> {
    return this.cgroups.remove(basename(dir));
  }

  /**
   * The namespace's init (bwrap's child), not the bwrap that was spawned: killing it ends every
   * process of the sandbox (the kernel kills a PID namespace with its init), where killing the
   * outer bwrap would leave them running, unowned.
   */
  sandboxPid(spawned: number): number {
    const init = descendants(spawned)[0];
    if (init === undefined) throw new SandboxError('The sandbox ended as it started');
    return init;
  }
}

/**
 * Makes `rel` under `base` on this machine, one folder at a time, refusing a symlink on the way:
 * the sandbox writes in `base` and could point a link anywhere this process may write.
 */
function makeInside(base: string, rel: string): void {
  let path = base;
  for (const part of rel.split('/').filter(Boolean)) {
    path = join(path, part);
    try {
      if (!lstatSync(path).isDirectory())
        throw new SandboxError(`The working folder ${path} is not a folder`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(path);
    }
  }
}
