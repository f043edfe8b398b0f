// Runs the real `agentd` binary (dist/cli.js) as a client command: piped, or under a pseudo-terminal,
// with its output collected as it comes, text to wait for, answers to type, signals to send. A command
// a test leaves running is killed after the file.
import { type ChildProcess, spawn } from 'node:child_process';
import { type IPty, spawn as spawnPty } from '@lydell/node-pty';
import { afterAll, beforeAll } from 'vitest';
import { LOOPBACK_ONLY } from '../support/cli.js';
import { waitUntil } from '../support/process.js';
import { ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';

export interface Command {
  /** stdout and stderr so far (a pty mixes them anyway). */
  output(): string;
  stdout(): string;
  waitFor(text: string | RegExp): Promise<void>;
  type(text: string): void;
  /** Closes stdin (Ctrl-D in a terminal). */
  endInput(): void;
  signal(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess | IPty>();
afterAll(() => {
  for (const proc of running) proc.kill('SIGKILL');
});

function baseEnv(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...LOOPBACK_ONLY,
    ...env,
  };
}

function handle(
  output: () => string,
  stdout: () => string,
  rest: Pick<Command, 'type' | 'endInput' | 'signal' | 'exited'>,
): Command {
  return {
    output,
    stdout,
    async waitFor(text) {
      const found = () => (typeof text === 'string' ? output().includes(text) : text.test(output()));
      let done = false;
      void rest.exited.then(() => {
        done = true;
      });
      await waitUntil(() => found() || done);
      if (!found()) throw new Error(`agentd ended without printing ${text}:\n${output()}`);
    },
    ...rest,
  };
}

/** The binary with stdin, stdout and stderr on pipes. */
export function agentd(args: string[], env: Record<string, string> = {}): Command {
  const proc = spawn(process.execPath, ['dist/cli.js', ...args], {
    env: baseEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  let all = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    all += chunk.toString();
  });
  proc.stderr!.on('data', (chunk: Buffer) => {
    all += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.once('close', (code) => {
      running.delete(proc);
      resolve(code);
    }),
  );
  return handle(
    () => all,
    () => out,
    {
      type: (text) => proc.stdin!.write(text),
      endInput: () => proc.stdin!.end(),
      signal: (signal) => proc.kill(signal),
      exited,
    },
  );
}

/** The binary in a pseudo-terminal (80 columns), as a person runs it. */
export function agentdInPty(args: string[], env: Record<string, string> = {}): Command {
  const pty = spawnPty(process.execPath, ['dist/cli.js', ...args], {
    name: 'xterm-256color',
    cols: 80,
    rows: 30,
    cwd: process.cwd(),
    env: baseEnv({ TERM: 'xterm-256color', ...env }),
  });
  running.add(pty);
  let out = '';
  pty.onData((data) => {
    out += data;
  });
  const exited = new Promise<number | null>((resolve) =>
    pty.onExit(({ exitCode }) => {
      running.delete(pty);
      // The last output can come after the exit; give the reader a turn to take it.
      setTimeout(() => resolve(exitCode), 100);
    }),
  );
  return handle(
    () => out,
    () => out,
    {
      type: (text) => pty.write(text),
      endInput: () => pty.write('\x04'),
      signal: (signal) => pty.kill(signal),
      exited,
    },
  );
}

/** The binary run to its end: exit code and output. */
export async function agentdToEnd(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; output: string }> {
  const command = agentd(args, env);
  command.type(''); // nothing typed; stdin stays open like a terminal's
  const code = await command.exited;
  return { code, stdout: command.stdout(), output: command.output() };
}

/**
 * The file's scripted LLM (started before its tests, stopped after) and, per call, the LLM_*
 * environment of a script of its own (a fresh key picks it).
 */
export function scriptedLLMEnv(prefix: string): {
  env(steps: ScriptStep[]): { LLM_MODEL: string; LLM_API_KEY: string; LLM_BASE_URL: string };
  url(): string;
} {
  const llm = new ScriptedLLM();
  let counter = 0;
  beforeAll(() => llm.start());
  afterAll(() => llm.stop());
  return {
    env(steps) {
      const key = `${prefix}-${++counter}`;
      llm.script(key, steps);
      return { LLM_MODEL: 'openai/scripted', LLM_API_KEY: key, LLM_BASE_URL: llm.openaiBaseUrl };
    },
    url: () => llm.openaiBaseUrl,
  };
}
