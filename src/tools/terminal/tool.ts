// terminal: commands in the conversation's persistent shell. Output keeps head and tail past 30,000
// characters (the full text saved under the conversation's folder); a command that goes quiet or
// passes its time limit returns what it printed so far with exit code -1, and the agent can wait
// (empty command), send input or keys (is_input), or interrupt it (C-c). A shell left unused for a
// while (terminalIdleSeconds, default 60) is closed; the next command starts a new one where the old
// one was, and tells the agent that its environment variables are gone.
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Static } from 'typebox';
import { TerminalAction } from '../../events/index.js';
import { toolDefinition } from '../define.js';
import type { LlmContent, Tool, ToolContext, ToolOptions } from '../types.js';
import { type CommandResult, keyBytes, TerminalSession } from './session.js';

type Action = Static<typeof TerminalAction>;

export interface TerminalObservation {
  kind: 'TerminalObservation';
  command: string | null;
  exit_code: number | null;
  timeout: boolean;
  metadata: {
    exit_code: number;
    pid: number;
    username: string | null;
    hostname: string | null;
    working_dir: string | null;
    py_interpreter_path: null;
    prefix: string;
    suffix: string;
  };
  full_output_save_dir?: string;
  content: { type: 'text'; text: string; cache_prompt: boolean }[];
  is_error: boolean;
}

export const MAX_OUTPUT_CHARS = 30_000;
const DEFAULT_NO_CHANGE_SECONDS = 30;
const DEFAULT_IDLE_SECONDS = 60;
const WAIT_HINT =
  'You may wait longer to see additional output by sending empty command \'\', send other commands to interact with the current process, send keys ("C-c", "C-z", "C-d") to interrupt/kill the previous command before sending your new command, or use the timeout parameter in terminal for future commands.';
const CLIPPED =
  '<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>';

/** Keeps the head and the tail of a long output, saving the whole text when a folder is given. */
export function truncate(text: string, limit: number, saveDir?: string): string {
  if (text.length <= limit) return text;
  let note = CLIPPED;
  if (saveDir) {
    mkdirSync(saveDir, { recursive: true });
    const file = join(
      saveDir,
      `terminal_output_${createHash('sha256').update(text).digest('hex').slice(0, 8)}.txt`,
    );
    writeFileSync(file, text);
    note += `<NOTE>The full output is saved at ${file}.</NOTE>`;
  }
  const half = Math.floor((limit - note.length - 2) / 2);
  return `${text.slice(0, half)}\n${note}\n${text.slice(text.length - half)}`;
}

function mask(text: string, secrets: Record<string, string>): string {
  let out = text;
  for (const value of Object.values(secrets))
    if (value.length >= 3) out = out.split(value).join('<secret-hidden>');
  return out;
}

export class Terminal {
  private session: TerminalSession | null = null;
  /** Calls in progress; the idle clock runs only when there are none. */
  private active = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Set when an idle shell was closed: where it was, so its successor starts there. */
  private closedIdleAt: string | null = null;

  constructor(private readonly options: ToolOptions) {}

  /**
   * The shell, started with the conversation's secrets exported when there is none. Secrets looked up
   * from a URL are fetched here; a failed lookup rejects (the command then is not run).
   */
  private async shell(ctx: ToolContext): Promise<TerminalSession> {
    if (!this.session) {
      const env = ctx.resolveSecrets ? await ctx.resolveSecrets() : (ctx.secrets?.() ?? {});
      if (this.session) return this.session;
      const resumeIn =
        this.closedIdleAt !== null && isDirectory(this.closedIdleAt) ? this.closedIdleAt : null;
      this.session = new TerminalSession(resumeIn ?? ctx.workingDir, env);
    }
    return this.session;
  }

  /** The shell, or the error observation saying why there is none. */
  private async shellOrError(
    command: string,
    ctx: ToolContext,
  ): Promise<TerminalSession | TerminalObservation> {
    try {
      return await this.shell(ctx);
    } catch (error) {
      return this.error(command, `${(error as Error).message}. The command was not run.`);
    }
  }

  async run(action: Action, ctx: ToolContext): Promise<TerminalObservation> {
    this.active++;
    this.stopIdleClock();
    try {
      const observation = await this.execute(action, ctx);
      // The first command after an idle close says so: the agent's exports and functions are gone.
      if (this.closedIdleAt !== null && this.session?.alive) {
        observation.metadata.prefix = RESTARTED_NOTE;
        this.closedIdleAt = null;
      }
      return observation;
    } finally {
      this.active--;
      this.startIdleClock();
    }
  }

  private startIdleClock(): void {
    if (this.active > 0 || !this.session) return;
    const seconds = this.options.terminalIdleSeconds ?? DEFAULT_IDLE_SECONDS;
    this.idleTimer = setTimeout(() => this.closeIfIdle(), seconds * 1000);
    this.idleTimer.unref();
  }

  private stopIdleClock(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /**
   * Closes a shell nobody is using. One with a command still going or background jobs (a dev server
   * started with &) stays: the agent may come back for them; the clock starts again.
   */
  private closeIfIdle(): void {
    this.idleTimer = null;
    const session = this.session;
    if (!session || this.active > 0) return;
    if (session.alive && (session.running || session.hasChildren())) {
      this.startIdleClock();
      return;
    }
    this.closedIdleAt = session.lastPrompt?.working_dir ?? this.closedIdleAt;
    this.session = null;
    void session.close();
  }

  private async execute(action: Action, ctx: ToolContext): Promise<TerminalObservation> {
    const hardTimeoutMs = action.timeout ? action.timeout * 1000 : null;
    // With an explicit time limit, a quiet command is simply waited for (OpenHands' rule).
    const noChangeTimeoutMs =
      hardTimeoutMs ?? (this.options.noChangeTimeoutSeconds ?? DEFAULT_NO_CHANGE_SECONDS) * 1000;
    const command = action.command;

    if (action.reset) {
      if (action.is_input) return this.error(command, 'Cannot use reset=True with is_input=True.');
      await this.session?.close();
      this.session = null;
      this.closedIdleAt = null;
      const fresh = await this.shellOrError(command, ctx);
      if (!(fresh instanceof TerminalSession)) return fresh;
      await fresh.start();
      return this.error(
        command,
        'Terminal session has been reset. All previous environment variables and session state have been lost.',
        false,
      );
    }

    const shell = await this.shellOrError(command, ctx);
    if (!(shell instanceof TerminalSession)) return shell;
    let result: CommandResult;
    if (action.is_input) {
      if (!shell.running) return this.error(command, 'No previous running command to interact with.');
      shell.write(keyBytes(command) ?? `${command}\n`);
      result = await shell.resume({ hardTimeoutMs, noChangeTimeoutMs, signal: ctx.signal });
    } else if (command.trim() === '') {
      if (!shell.running) return this.error(command, 'No previous running command to retrieve logs from.');
      result = await shell.resume({ hardTimeoutMs, noChangeTimeoutMs, signal: ctx.signal });
    } else {
      if (shell.running) {
        const pending = await shell.resume({ hardTimeoutMs: 0, noChangeTimeoutMs: 0 });
        if (pending.prompt === null) {
          return this.error(
            command,
            `${pending.output}\n[Your command "${command}" is NOT executed. The previous command is still running - You CANNOT send new commands until the previous command is completed. By setting \`is_input\` to \`true\`, you can interact with the current process: ${WAIT_HINT}]`,
          );
        }
      }
      result = await shell.run(`${command.replace(/\n+$/, '')}\n`, {
        hardTimeoutMs,
        noChangeTimeoutMs,
        signal: ctx.signal,
      });
    }
    return this.observe(command, result, ctx, action.is_input === true, action.timeout ?? null);
  }

  private observe(
    command: string,
    result: CommandResult,
    ctx: ToolContext,
    isInput: boolean,
    hardSeconds: number | null,
  ): TerminalObservation {
    const prompt = result.prompt;
    let suffix: string;
    if (prompt) {
      suffix = `\n[The command completed with exit code ${prompt.exit_code}.${isInput && keyBytes(command) ? ` ${command.replace(/^C-(.)$/, (_m, k: string) => `CTRL+${k.toUpperCase()}`)} was sent.` : ''}]`;
    } else if (result.timedOut === 'hard') {
      suffix = `\n[The command timed out after ${hardSeconds} seconds. ${WAIT_HINT}]`;
    } else if (result.timedOut === 'interrupted') {
      suffix = `\n[The conversation was interrupted: CTRL+C was sent, and the command has not ended yet. ${WAIT_HINT}]`;
    } else {
      const seconds = this.options.noChangeTimeoutSeconds ?? DEFAULT_NO_CHANGE_SECONDS;
      suffix = `\n[The command has no new output after ${seconds} seconds. ${WAIT_HINT}]`;
    }
    const secrets = ctx.secrets?.() ?? {};
    const output = truncate(
      mask(result.output.replace(/\n$/, ''), secrets),
      MAX_OUTPUT_CHARS,
      join(ctx.persistenceDir, 'observations'),
    );
    const last = this.session?.lastPrompt;
    const exitCode = prompt ? prompt.exit_code : -1;
    return {
      kind: 'TerminalObservation',
      command,
      exit_code: exitCode,
      timeout: prompt === null,
      metadata: {
        exit_code: exitCode,
        pid: last?.pid ?? -1,
        username: last?.username ?? null,
        hostname: last?.hostname ?? null,
        working_dir: last?.working_dir ?? ctx.workingDir,
        py_interpreter_path: null,
        prefix: '',
        suffix,
      },
      content: [{ type: 'text', text: output, cache_prompt: false }],
      is_error: false,
    };
  }

  private error(command: string, text: string, isError = true): TerminalObservation {
    return {
      kind: 'TerminalObservation',
      command,
      exit_code: -1,
      timeout: false,
      metadata: {
        exit_code: -1,
        pid: -1,
        username: null,
        hostname: null,
        working_dir: null,
        py_interpreter_path: null,
        prefix: '',
        suffix: '',
      },
      content: [{ type: 'text', text, cache_prompt: false }],
      is_error: isError,
    };
  }

  async close(): Promise<void> {
    this.stopIdleClock();
    const session = this.session;
    this.session = null;
    await session?.close();
  }
}

const RESTARTED_NOTE =
  '[The previous shell was closed after a period without use; this is a new shell in the same directory. Environment variables, aliases and functions set earlier are gone.]\n';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What the LLM reads: output, suffix, working directory and exit code (OpenHands' layout). */
export function terminalLlmContent(observation: TerminalObservation): LlmContent[] {
  const text = observation.content.map((c) => c.text).join('');
  const m = observation.metadata;
  let out = `${m.prefix}${text}${m.suffix}`;
  if (m.working_dir) out += `\n[Current working directory: ${m.working_dir}]`;
  if (m.exit_code !== -1) out += `\n[Command finished with exit code ${m.exit_code}]`;
  return [{ type: 'text', text: out, cache_prompt: false }];
}

export function terminalTool(options: ToolOptions = {}): Tool<Action, TerminalObservation> {
  const terminal = new Terminal(options);
  return {
    name: 'terminal',
    actionKind: 'TerminalAction',
    actionSchema: TerminalAction,
    readOnly: false,
    definition: toolDefinition({
      name: 'terminal',
      kind: 'TerminalTool',
      actionKind: 'TerminalAction',
      observationKind: 'TerminalObservation',
      readOnly: false,
      openWorld: true,
      description: [
        'Run a bash command in a persistent shell: the working directory, environment variables and',
        'background jobs carry over from one call to the next.',
        '* One command per call; chain steps with && or ;. Long output is cut in the middle.',
        '* A command that prints nothing for a while returns early with exit code -1 and keeps running:',
        "  send an empty command '' to wait for more, set `is_input` to send text or keys (C-c, C-d, C-z,",
        '  UP, DOWN, TAB, ENTER, …) to it, or pass `timeout` (seconds) for commands you expect to be slow.',
        '* Run servers in the background (`cmd > log 2>&1 &`) so the shell stays usable.',
        '* `reset: true` starts a fresh shell when the current one is stuck.',
      ].join('\n'),
    }),
    execute: (action, ctx) => terminal.run(action, ctx),
    toLlmContent: terminalLlmContent,
    close: () => terminal.close(),
  };
}
