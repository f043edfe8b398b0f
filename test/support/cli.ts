// Runs the real `agentd` binary (dist/cli.js, built by the global setup) and waits for it to listen.
// It gets the test run's temp folder (TMPDIR), and is stopped after the test file if a test did not.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

const running = new Set<ChildProcess>();

/** After a test file: stops the servers its tests left running (their whole process groups). */
export async function stopLeftoverClis(): Promise<void> {
  await Promise.allSettled(
    [...running].map(
      (proc) =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once('exit', () => resolve());
          try {
            process.kill(-proc.pid!, 'SIGTERM');
          } catch {
            proc.kill('SIGTERM');
          }
        }),
    ),
  );
}

export interface RunningCli {
  url: string;
  key: string | null;
  output: () => string;
  proc: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** An MCP URL nothing answers: connecting fails at once, and nothing leaves this machine. */
export const CLOSED_LOOPBACK_MCP = 'http://127.0.0.1:9/mcp';
/** A GitHub API URL nothing answers, likewise. */
export const CLOSED_LOOPBACK_GITHUB = 'http://127.0.0.1:9/';

/**
 * What keeps the binary on loopback: no extensions repository (its default is GitHub's), and neither a
 * search key nor a GitHub token in a test's settings reaching Tavily or GitHub.
 */
export const LOOPBACK_ONLY = {
  AGENTD_EXTENSIONS_REPO: '',
  AGENTD_SEARCH_MCP_URL: CLOSED_LOOPBACK_MCP,
  AGENTD_GITHUB_API_URL: CLOSED_LOOPBACK_GITHUB,
};

export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; command?: string[] } = {},
): Promise<RunningCli> {
  const command = options.command ?? [process.execPath, 'dist/cli.js'];
  const proc = spawn(command[0]!, [...command.slice(1), ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...LOOPBACK_ONLY,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() reaches the server behind a wrapper such as `npm start`
    // (npm does not pass SIGTERM on to it).
    detached: true,
  });
  running.add(proc);
  let out = '';
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      running.delete(proc);
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agentd did not start:\n${out}`)), 60_000);
    let listening = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // Once listening, the output is only kept: matching the whole of it again per chunk flattened
      // the growing string each time, which cost a benchmark's client more CPU than its requests.
      if (listening) return;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        listening = true;
        clearTimeout(timer);
        const key = /session key: (\S+)/.exec(out)?.[1] ?? null;
        resolve({
          url,
          key,
          output: () => out,
          proc,
          async stop(signal = 'SIGTERM') {
            if (proc.exitCode === null) {
              try {
                process.kill(-proc.pid!, signal);
              } catch {
                proc.kill(signal);
              }
            }
            return exited;
          },
        });
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`agentd exited with ${code} before listening:\n${out}`));
    });
  });
}

/** Runs the binary to its exit, for the ways of calling it that must fail at once. */
export function runCliToExit(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync(process.execPath, ['dist/cli.js', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...LOOPBACK_ONLY, ...env },
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}
