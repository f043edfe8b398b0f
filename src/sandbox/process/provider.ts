// The embedded default's sandbox: a child `agentd agent` per sandbox, on a free loopback port, with
// its own session key, data and working folder under the sandbox's folder. The child is detached
// (its own process group), so a crash of the control plane leaves it running to be adopted on the
// next start. Pause and resume signal the whole process tree (terminal ptys start new sessions).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
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
}

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

/** The folder holding this package's package.json (works from src/ and from the dist bundle). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('agentd: cannot find the package folder');
    dir = parent;
  }
  return dir;
}

export function workingDirOf(dir: string, specWorkingDir: string): string {
  return isAbsolute(specWorkingDir) ? specWorkingDir : resolve(dir, specWorkingDir);
}

export class ProcessSandboxProvider implements SandboxProvider {
  private readonly command: readonly string[];
  private readonly startTimeoutMs: number;
  private readonly stopGraceMs: number;
  /** Children this process started, to learn of their exit without polling. */
  private readonly children = new Map<number, ChildProcess>();

  constructor(options: ProcessProviderOptions = {}) {
    this.command = options.command ?? [process.execPath, join(packageRoot(), 'dist', 'cli.js')];
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.stopGraceMs = options.stopGraceMs ?? 5_000;
  }

  private env(request: LaunchRequest): Record<string, string> {
    return { ...inheritedEnv(), ...request.spec.initial_env, OH_SESSION_API_KEYS_0: request.sessionKey };
  }

  async launch(request: LaunchRequest): Promise<Launched> {
    const cwd = workingDirOf(request.dir, request.spec.working_dir);
    mkdirSync(cwd, { recursive: true });
    const log = openSync(join(request.dir, 'agent.log'), 'a', 0o600);
    const [executable, ...prefix] = this.command;
    let child: ChildProcess;
    try {
      child = spawn(
        executable!,
        [
          ...prefix,
          'agent',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--data-dir',
          join(request.dir, 'state'),
          '--ready-fd',
          '3',
          ...(request.spare ? ['--spare'] : []),
        ],
        { cwd, env: this.env(request), detached: true, stdio: ['ignore', log, log, 'pipe'] },
      );
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
      if (!request.spare) {
        pipe.destroy();
        return { pid, agentUrl };
      }
      // The pipe stays open: closing it (or this process ending) tells an unclaimed spare to exit.
      pipe.unref();
      return {
        pid,
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
    _sandbox: SandboxHandle,
    command: string,
    options: { cwd: string; timeoutMs: number },
  ): Promise<{ exitCode: number | null; output: string }> {
    return new Promise((resolveRun) => {
      const child = spawn('bash', ['-c', command], {
        cwd: options.cwd,
        env: { ...inheritedEnv(), GIT_TERMINAL_PROMPT: '0' },
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
