// The embedded default's sandbox: a child `agentd agent` per sandbox, on a free loopback port, with
// its own session key, data and working folder under the sandbox's folder. The child is detached
// (its own process group), so a crash of the control plane leaves it running to be adopted on the
// next start. Pause and resume signal the whole process tree (terminal ptys start new sessions).
// A `Confinement` decides how the sandbox's commands run: as they are (this provider's own), or
// wrapped in namespaces (the bwrap provider reuses everything here with its own confinement).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { continueTree, descendants, processState, signalTree, stopTree } from '../process-tree.js';
import {
  type Launched,
  type LaunchRequest,
  type Liveness,
  SandboxError,
  type SandboxHandle,
  type SandboxProvider,
} from '../types.js';

export interface ProcessProviderOptions {
  /** The command that runs the agentd CLI; default: this Node with this package's dist/cli.js. */
  command?: readonly string[];
  /** How long a child may take to answer its health check. */
  startTimeoutMs?: number;
  /** How long a stopping child gets after SIGTERM before the tree is killed. */
  stopGraceMs?: number;
  /** Browser origins the sandbox's agent server allows (AGENTD_CORS_ORIGINS): the control plane's. */
  corsOrigins?: readonly string[];
}

/** A command line to run for a sandbox, and the folder it starts in on this machine. */
export interface Wrapped {
  argv: string[];
  cwd: string;
}

/**
 * How a sandbox's processes run. Paths given to and returned by a confinement are as the sandbox's
 * processes see them; `wrap` turns a command and its folder into what this machine runs.
 */
export interface Confinement {
  /** The spec's working folder as the sandbox sees it (a relative one is in the sandbox's folder). */
  workingDir(dir: string, specWorkingDir: string): string;
  /** The agent server's own data folder as the sandbox sees it. */
  stateDir(dir: string): string;
  /** Creates what must exist on this machine before the sandbox (or a command in it) starts. */
  prepare(dir: string, workingDir: string): void;
  /** Variables that replace the inherited ones (e.g. HOME inside the sandbox). */
  env(dir: string): Record<string, string>;
  wrap(dir: string, argv: readonly string[], cwd: string): Wrapped;
  /**
   * The process that stands for the sandbox once it runs, given the one spawned: the pid kept in
   * its record, for liveness, pause, resume and stop.
   */
  sandboxPid(spawned: number): number;
  /** Frees what `prepare` or `wrap` held for a sandbox once its processes are gone. */
  release(dir: string): Promise<void>;
}

/** The process provider's own: commands run as they are, paths are this machine's. */
export const unconfined: Confinement = {
  workingDir: (dir, specWorkingDir) => workingDirOf(dir, specWorkingDir),
  stateDir: (dir) => join(dir, 'state'),
  prepare: (_dir, workingDir) => mkdirSync(workingDir, { recursive: true }),
  env: () => ({}),
  wrap: (_dir, argv, cwd) => ({ argv: [...argv], cwd }),
  sandboxPid: (spawned) => spawned,
  release: async () => {},
};

/** The environment a sandbox inherits: what tools need to run, never the control plane's keys. */
const INHERITED_ENV = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TERM',
  'TZ',
  'TMPDIR',
  'USER',
  'SHELL',
  // The server's own configuration that applies inside sandboxes too.
  'AGENTD_CHROMIUM',
  'AGENTD_HOOKS_FILE',
  'AGENTD_PRICING_FILE',
];

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * The folder holding this package's package.json (works from src/ and from the dist bundle): the
 * nearest one that names a package, past dist/package.json, which only says dist/*.js is CommonJS.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!namesPackage(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('agentd: cannot find the package folder');
    dir = parent;
  }
  return dir;
}

function namesPackage(file: string): boolean {
  try {
    return typeof (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'string';
  } catch {
    return false; // absent or unreadable: not this package's
  }
}

/** This Node running this package's CLI bundle. */
export function agentdCommand(): string[] {
  return [process.execPath, join(packageRoot(), 'dist', 'cli.js')];
}

export function workingDirOf(dir: string, specWorkingDir: string): string {
  return isAbsolute(specWorkingDir) ? specWorkingDir : resolve(dir, specWorkingDir);
}

export class ProcessSandboxProvider implements SandboxProvider {
  private readonly command: readonly string[];
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly corsOrigins: readonly string[];
  /** Children this process started, to learn of their exit without polling. */
  private readonly children = new Map<number, ChildProcess>();

  constructor(
    options: ProcessProviderOptions = {},
    private readonly confinement: Confinement = unconfined,
  ) {
    this.command = options.command ?? agentdCommand();
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
    this.corsOrigins = options.corsOrigins ?? [];
  }

  private env(request: LaunchRequest): Record<string, string> {
    return {
      ...inheritedEnv(),
      ...this.confinement.env(request.dir),
      ...request.spec.initial_env,
      OH_SESSION_API_KEYS_0: request.sessionKey,
      // Set by the control plane, not inherited: the agent server allows the control plane's web UI.
      ...(this.corsOrigins.length > 0 ? { AGENTD_CORS_ORIGINS: this.corsOrigins.join(',') } : {}),
    };
  }

  workingDir(dir: string, specWorkingDir: string): string {
    return this.confinement.workingDir(dir, specWorkingDir);
  }

  async launch(request: LaunchRequest): Promise<Launched> {
    const workingDir = this.workingDir(request.dir, request.spec.working_dir);
    this.confinement.prepare(request.dir, workingDir);
    const log = openSync(join(request.dir, 'agent.log'), 'a', 0o600);
    const agent = [
      ...this.command,
      'agent',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      this.confinement.stateDir(request.dir),
      '--ready-fd',
      '3',
      ...(request.spare ? ['--spare'] : []),
    ];
    const { argv, cwd } = this.confinement.wrap(request.dir, agent, workingDir);
    let child: ChildProcess;
    try {
      child = spawn(argv[0]!, argv.slice(1), {
        cwd,
        env: this.env(request),
        detached: true,
        stdio: ['ignore', log, log, 'pipe'],
      });
    } finally {
      closeSync(log);
    }
    child.unref();
    const pid = child.pid;
    if (pid === undefined) throw new SandboxError('The sandbox process could not be started');
    this.children.set(pid, child);
    child.once('exit', () => this.children.delete(pid));
    try {
      const pipe = child.stdio[3] as Socket;
      const port = await this.readyPort(child, request.dir);
      const agentUrl = `http://127.0.0.1:${port}`;
      await this.healthCheck(agentUrl);
      const sandboxPid = this.confinement.sandboxPid(pid);
      if (!request.spare) {
        pipe.destroy();
        return { pid: sandboxPid, agentUrl };
      }
      // The pipe stays open: closing it (or this process ending) tells an unclaimed spare to exit.
      pipe.unref();
      return {
        pid: sandboxPid,
        agentUrl,
        claim: () => {
          pipe.end('claim\n');
        },
      };
    } catch (error) {
      signalTree(pid, 'SIGKILL');
      throw error;
    }
  }

  /** The port from the child's one ready line on fd 3; fails if it exits or takes too long. */
  private readyPort(child: ChildProcess, dir: string): Promise<number> {
    const pipe = child.stdio[3] as Socket;
    return new Promise((resolvePort, reject) => {
      let text = '';
      const fail = (message: string) => {
        cleanup();
        const tail = readTail(join(dir, 'agent.log'));
        reject(new SandboxError(`${message}${tail ? `\n${tail}` : ''}`));
      };
      const onData = (chunk: Buffer) => {
        text += chunk.toString();
        const newline = text.indexOf('\n');
        if (newline < 0) return;
        cleanup();
        try {
          resolvePort((JSON.parse(text.slice(0, newline)) as { port: number }).port);
        } catch {
          reject(new SandboxError(`The sandbox agent server sent an unreadable ready line: ${text}`));
        }
      };
      const onExit = (code: number | null, signal: string | null) =>
        fail(`The sandbox agent server exited before it was ready (${signal ?? `exit code ${code}`})`);
      const timer = setTimeout(
        () => fail(`The sandbox agent server did not start within ${this.startTimeoutMs} ms`),
        this.startTimeoutMs,
      );
      const cleanup = () => {
        clearTimeout(timer);
        pipe.off('data', onData);
        child.off('exit', onExit);
      };
      pipe.on('data', onData);
      child.once('exit', onExit);
    });
  }

  private async healthCheck(agentUrl: string): Promise<void> {
    const response = await fetch(`${agentUrl}/alive`, { signal: AbortSignal.timeout(5_000) }).catch(
      (error: Error) => {
        throw new SandboxError(`The sandbox agent server does not answer: ${error.message}`);
      },
    );
    if (!response.ok) throw new SandboxError(`The sandbox health check answered ${response.status}`);
    await response.arrayBuffer();
  }

  liveness(sandbox: SandboxHandle): Liveness {
    if (sandbox.pid === null) return 'gone';
    const state = processState(sandbox.pid, sandbox.dir);
    return state === 'stopped' ? 'paused' : state;
  }

  pause(sandbox: SandboxHandle): void {
    if (sandbox.pid !== null) stopTree(sandbox.pid);
  }

  resume(sandbox: SandboxHandle): void {
    if (sandbox.pid !== null) continueTree(sandbox.pid);
  }

  async stop(sandbox: SandboxHandle): Promise<void> {
    await this.end(sandbox);
    await this.confinement.release(sandbox.dir);
  }

  private async end(sandbox: SandboxHandle): Promise<void> {
    const pid = sandbox.pid;
    if (pid === null || this.liveness(sandbox) === 'gone') return;
    // Children are collected first: once the agent server exits they are re-parented.
    const tree = [pid, ...descendants(pid)];
    continueTree(pid);
    signalTree(pid, 'SIGTERM');
    const deadline = Date.now() + this.stopGraceMs;
    while (Date.now() < deadline && this.liveness(sandbox) !== 'gone') {
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const p of tree) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  exec(
    sandbox: SandboxHandle,
    command: string,
    options: { cwd: string; timeoutMs: number },
  ): Promise<{ exitCode: number | null; output: string }> {
    const { argv, cwd } = this.confinement.wrap(sandbox.dir, ['bash', '-c', command], options.cwd);
    return new Promise((resolveRun) => {
      const child = spawn(argv[0]!, argv.slice(1), {
        cwd,
        env: { ...inheritedEnv(), ...this.confinement.env(sandbox.dir), GIT_TERMINAL_PROMPT: '0' },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const collect = (chunk: Buffer) => {
        if (output.length < 64 * 1024) output += chunk.toString();
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      const timer = setTimeout(() => child.pid && signalTree(child.pid, 'SIGKILL'), options.timeoutMs);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolveRun({ exitCode: code, output });
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        resolveRun({ exitCode: null, output: error.message });
      });
    });
  }
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-10).join('\n').trim();
  } catch {
    return '';
  }
}
