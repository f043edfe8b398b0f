// A persistent bash in a real pseudo-terminal. Completion is detected by the prompt: PS1 prints a
// JSON marker with the exit code and working directory, so a command is done exactly when its
// prompt arrives (no polling). Echo is off, so the output is only what the command printed.
import { userInfo } from 'node:os';
import type { IPty } from '@lydell/node-pty';
import { loopTurns } from '../../loop/index.js';
import { descendants } from '../../sandbox/process-tree.js';

const START = '###PS1JSON###';
const END = '###PS1END###';
const PS1 = `\\n${START}{"exit_code": "$?", "working_dir": "$PWD", "username": "\\u", "hostname": "\\h", "pid": "$$"}${END}\\n`;
const PROMPT = new RegExp(`\\r?\\n?${START}(\\{.*?\\})${END}\\r?\\n?`, 's');
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are control characters.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/**
 * What of one command's output is kept in memory: its first and its last mebibyte. The agent is shown
 * 30,000 characters of head and tail (tool.ts) and the file it may read holds what is kept; the middle
 * of a longer output is dropped as it arrives, with a line saying how much. Without the bound a command
 * that prints without end (`yes`, a runaway log) grew the server's memory until the string passed
 * V8's limit (~512 MB), and the RangeError in the data handler took the whole server down; 100 MB of
 * output already cost ~570 MB of RSS. KEEP_CHARS: the characters kept at each end.
 */
export const KEEP_CHARS = 2 ** 20;

export interface PromptInfo {
  exit_code: number;
  working_dir: string;
  username: string;
  hostname: string;
  pid: number;
}

export interface CommandResult {
  output: string;
  /** The prompt that ended the command, or null when it is still running. */
  prompt: PromptInfo | null;
  /** Why the wait ended before the prompt: no new output for a while, the hard limit, or an interrupt. */
  timedOut: Ending;
}

type Ending = 'no_change' | 'hard' | 'interrupted' | null;

/** How to wait for a command: its timeouts, and the conversation's signal, which interrupts it. */
export interface WaitOptions {
  hardTimeoutMs: number | null;
  noChangeTimeoutMs: number;
  signal?: AbortSignal;
}

/** How long an interrupted command's prompt is waited for after C-c, so the shell is ready for the next one. */
const INTERRUPT_GRACE_MS = 2000;

const KEYS: Record<string, string> = {
  ENTER: '\r',
  TAB: '\t',
  ESC: '\u001b',
  BS: '\u007f',
  UP: '\u001b[A',
  DOWN: '\u001b[B',
  RIGHT: '\u001b[C',
  LEFT: '\u001b[D',
  HOME: '\u001b[H',
  END: '\u001b[F',
  PGUP: '\u001b[5~',
  PGDN: '\u001b[6~',
};

/** The bytes a special key name stands for (`C-c`, `UP`, …), or null for ordinary text. */
export function keyBytes(name: string): string | null {
  const control = /^C-([a-zA-Z])$/.exec(name);
  if (control) return String.fromCharCode(control[1]!.toUpperCase().charCodeAt(0) - 64);
  return KEYS[name] ?? null;
}

export function cleanOutput(raw: string): string {
  return raw.replace(ANSI, '').replace(/\r\n/g, '\n').replace(/\r/g, '');
}

/**
 * The shell's setup, run before its first prompt: echo off, so output is only the command's, and the
 * JSON prompt. It travels in the environment and runs from PROMPT_COMMAND (which it then unsets)
 * rather than from an rc file, so a shell leaves no file behind, even when the server is killed.
 */
const SHELL_SETUP = [
  'unset PROMPT_COMMAND AGENTD_SHELL_SETUP',
  'stty -echo 2>/dev/null',
  'bind "set enable-bracketed-paste off" 2>/dev/null',
  "PS2=''",
  `PS1='${PS1}'`,
].join('\n');

/**
 * Shells start a few at a time, first come first served: spawning one blocks the event loop ~17 ms,
 * so a burst of conversations each starting its shell in the same turn would hold every other
 * request (/health included) for seconds. A slot is held from the spawn to the first prompt.
 */
const STARTING_AT_ONCE = 3;
let startingNow = 0;
const waitingToStart: (() => void)[] = [];

function startSlot(): Promise<void> {
  if (startingNow < STARTING_AT_ONCE) {
    startingNow++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waitingToStart.push(resolve));
}

/** Hands the slot to the next shell waiting, if any. */
function releaseStartSlot(): void {
  const next = waitingToStart.shift();
  if (next) next();
  else startingNow--;
}

/**
 * node-pty (a native addon) loads with the first terminal, not with the server (~10 ms of cold
 * start); a served process loads it ahead while idle (server/warm-up.ts).
 */
export function loadPty(): Promise<typeof import('@lydell/node-pty')> {
  return import('@lydell/node-pty');
}

export class TerminalSession {
  private pty: IPty | null = null;
  private starting: Promise<void> | null = null;
  private closed = false;
  /** The output since the last cut; once it overflows, only its end (the head is kept apart). */
  private buffer = '';
  /** The output's first KEEP_CHARS, set once the output outgrows what is kept. */
  private head: string | null = null;
  /** Characters of output dropped between the head and the buffer. */
  private dropped = 0;
  /**
   * Whether the buffer holds a whole prompt. Tested when a prompt's end marker arrives, never by
   * scanning the buffer on each chunk: that flattens and scans the whole buffer each time, quadratic
   * in a command's output (8 MB printed: ~8 s of a blocked event loop, every conversation and
   * /health waiting).
   */
  private promptIn = false;
  /** The buffer's last characters, fewer than the end marker's: where a marker split by a chunk begins. */
  private tail = '';
  private listeners = new Set<() => void>();
  private exited = false;
  /** True from sending a command until its prompt arrives. */
  running = false;
  lastPrompt: PromptInfo | null = null;

  constructor(
    private readonly cwd: string,
    private readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    if (this.pty) return;
    this.starting ??= this.startShell().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async startShell(): Promise<void> {
    await startSlot();
    try {
      // The spawn blocks the loop: on a turn of its own, not on top of whatever woke this start
      // (the previous shell's first prompt, read with other I/O).
      await loopTurns.turn('background');
      // Closed while waiting for its turn: no shell, rather than one nobody will close.
      if (this.closed) throw new Error('The terminal was closed before its shell started');
      await this.spawnShell();
    } finally {
      releaseStartSlot();
    }
  }

  private async spawnShell(): Promise<void> {
    const { spawn } = await loadPty();
    const pty = spawn('bash', ['--noprofile', '--norc', '-i'], {
      name: 'xterm-256color',
      cols: 256,
      rows: 200,
      cwd: this.cwd,
      env: {
        ...sanitizedEnv(),
        ...this.env,
        TERM: 'xterm-256color',
        HISTFILE: '/dev/null',
        AGENTD_SHELL_SETUP: SHELL_SETUP,
        PROMPT_COMMAND: 'eval "$AGENTD_SHELL_SETUP"',
      },
    });
    this.pty = pty;
    pty.onData((data) => {
      // The marker may straddle two chunks, so the buffer's tail is looked at with the new data; the
      // tail is kept apart because slicing the buffer (a rope of chunks) would copy it whole each time.
      const window = this.tail + data;
      const arrived = window.includes(END);
      this.tail = window.slice(1 - END.length);
      this.buffer += data;
      if (this.buffer.length > (this.head === null ? KEEP_CHARS : 0) + 2 * KEEP_CHARS) this.dropMiddle();
      if (arrived && !this.promptIn) this.promptIn = PROMPT.test(this.buffer);
      for (const listener of this.listeners) listener();
    });
    pty.onExit(() => {
      this.exited = true;
      for (const listener of this.listeners) listener();
    });
    // The first prompt says the shell is ready.
    await this.waitForPrompt({ noChangeTimeoutMs: 10_000, hardTimeoutMs: 10_000 });
    this.cut('');
  }

  /**
   * Keeps the head (once) and the buffer's last KEEP_CHARS. It runs when the buffer has grown by
   * KEEP_CHARS since, so copying stays linear in the output. A prompt is a few hundred
   * characters printed at once: it is never cut.
   */
  private dropMiddle(): void {
    let rest = this.buffer;
    if (this.head === null) {
      this.head = rest.slice(0, KEEP_CHARS);
      rest = rest.slice(KEEP_CHARS);
    }
    this.dropped += rest.length - KEEP_CHARS;
    this.buffer = rest.slice(-KEEP_CHARS);
  }

  /** The output taken: the buffer's first `end` characters, after the head and the dropped count. */
  private taken(end: number): string {
    let last = this.buffer.slice(0, end);
    if (this.head === null) return last;
    if (last.length > KEEP_CHARS) {
      this.dropped += last.length - KEEP_CHARS;
      last = last.slice(-KEEP_CHARS);
    }
    return `${this.head}\n[${this.dropped} characters of this output were not kept: only its first and last ${KEEP_CHARS / 2 ** 20} MiB are]\n${last}`;
  }

  /** Replaces the buffer with what follows what was taken from it. */
  private cut(rest: string): void {
    this.head = null;
    this.dropped = 0;
    this.buffer = rest;
    this.tail = rest.slice(1 - END.length);
    this.promptIn = rest.includes(END) && PROMPT.test(rest);
  }

  /** Sends a command line (or raw input) and waits for its prompt or a timeout. */
  async run(input: string, options: WaitOptions): Promise<CommandResult> {
    await this.start();
    this.cut('');
    this.running = true;
    this.pty!.write(input);
    return this.collect(options);
  }

  /** Waits for more output of the running command (an empty command from the agent). */
  async resume(options: WaitOptions): Promise<CommandResult> {
    return this.collect(options);
  }

  write(data: string): void {
    this.pty?.write(data);
  }

  private async collect(options: WaitOptions): Promise<CommandResult> {
    const outcome = await this.waitForPrompt(options);
    const match = PROMPT.exec(this.buffer);
    if (match) {
      const output = this.taken(match.index);
      this.cut(this.buffer.slice(match.index + match[0].length));
      this.running = false;
      const raw = JSON.parse(match[1]!) as Record<string, string>;
      this.lastPrompt = {
        exit_code: Number(raw.exit_code),
        working_dir: raw.working_dir ?? this.cwd,
        username: raw.username ?? '',
        hostname: raw.hostname ?? '',
        pid: Number(raw.pid),
      };
      return { output: cleanOutput(output), prompt: this.lastPrompt, timedOut: null };
    }
    const output = this.taken(this.buffer.length);
    this.cut('');
    if (this.exited) this.running = false;
    return { output: cleanOutput(output), prompt: null, timedOut: outcome };
  }

  /**
   * Resolves when a prompt is in the buffer, or with what ended the wait before it. An abort of the
   * signal sends C-c, as the agent would, then waits a moment for the prompt: a command with steady
   * output (`yes`) kept resetting the no-output timer, so an interrupted conversation left it running,
   * and the terminal's next call waiting behind it.
   */
  private waitForPrompt({
    noChangeTimeoutMs: noChangeMs,
    hardTimeoutMs: hardMs,
    signal,
  }: WaitOptions): Promise<Ending> {
    return new Promise((resolve) => {
      let noChange: NodeJS.Timeout | undefined;
      let hard: NodeJS.Timeout | undefined;
      let interrupted = false;
      let done = false;
      const finish = (result: Ending) => {
        done = true;
        clearTimeout(noChange);
        clearTimeout(hard);
        this.listeners.delete(check);
        signal?.removeEventListener('abort', interrupt);
        resolve(result);
      };
      const interrupt = () => {
        if (done) return;
        interrupted = true;
        this.pty?.write(keyBytes('C-c')!);
        clearTimeout(hard);
        hard = setTimeout(() => finish('interrupted'), INTERRUPT_GRACE_MS);
      };
      const armNoChange = () => {
        clearTimeout(noChange);
        noChange = setTimeout(() => finish(interrupted ? 'interrupted' : 'no_change'), noChangeMs);
      };
      const check = () => {
        if (this.promptIn || this.exited) return finish(null);
        armNoChange();
      };
      this.listeners.add(check);
      if (hardMs !== null) hard = setTimeout(() => finish('hard'), hardMs);
      check();
      if (signal?.aborted) interrupt();
      else if (!done) signal?.addEventListener('abort', interrupt, { once: true });
    });
  }

  get alive(): boolean {
    return this.pty !== null && !this.exited;
  }

  /** True while the shell has processes of its own (a command or background jobs; Linux only). */
  hasChildren(): boolean {
    return this.pty !== null && descendants(this.pty.pid).length > 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pty = this.pty;
    this.pty = null;
    if (!pty || this.exited) return;
    const gone = new Promise<void>((resolve) => pty.onExit(() => resolve()));
    // The shell and everything it started, background jobs (own process groups) included.
    for (const pid of [pty.pid, ...descendants(pty.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
  }
}

/**
 * The server's own secrets among its environment variables: session keys, the secret key, API keys,
 * and the database and Redis URLs (they may carry a password).
 */
const SERVER_SECRET = /SESSION_API_KEY|OH_SECRET_KEY|API_KEY$|^AGENTD_(TEST_)?(DATABASE|REDIS)_URL$/i;

/** The server's environment without its own secrets. */
export function sanitizedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (SERVER_SECRET.test(key)) continue;
    env[key] = value;
  }
  env.USER ??= userInfo().username;
  return env;
}
