// Runs one command as OpenHands' bash service does: `sh -c` in a new session (its own process group),
// the server's environment without its secrets, output decoded as UTF-8 and cut into chunks of
// `chunkChars` (an intermediate BashOutput per full chunk, exit_code null), then a final BashOutput with
// what remains and the exit code. On timeout the group gets SIGTERM, then SIGKILL after a grace, and
// the exit code is -1. A command that cannot start ends with one BashOutput: exit_code -1 and
// "Error executing command: …" in stderr.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { sanitizedEnv } from '../tools/index.js';
import type { BashCommand, BashOutput } from './schemas.js';

export interface RunLimits {
  /** Characters per output chunk (OpenHands: 1 MiB characters). */
  chunkChars: number;
  /**
   * Characters of output kept per command; the rest is read and dropped undecoded, and the final stderr
   * says how many bytes.
   */
  maxOutputChars: number;
  /** Between SIGTERM and SIGKILL after a timeout. */
  killGraceMs: number;
}

export interface RunningCommand {
  /** Resolves with the final BashOutput once the command has ended and its output is read. */
  done: Promise<BashOutput>;
  /** Ends the command's process group now (server shutdown). */
  kill(): void;
}

type Emit = (output: Omit<BashOutput, 'id' | 'timestamp' | 'kind' | 'command_id'>) => BashOutput;

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

async function cwdProblem(cwd: string | null): Promise<string | null> {
  if (cwd === null) return null;
  try {
    if (!(await stat(cwd)).isDirectory()) return `Not a directory: '${cwd}'`;
    return null;
  } catch (error) {
    return `No such directory: '${cwd}' (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

export function runCommand(command: BashCommand, limits: RunLimits, emit: Emit): RunningCommand {
  let pid: number | undefined;
  let stopped = false;
  // Replaced by the running command's terminate once it has started.
  let stopNow = () => {
    stopped = true;
  };
  const done = (async (): Promise<BashOutput> => {
    const problem = await cwdProblem(command.cwd);
    if (problem !== null || stopped)
      return emit({
        order: 0,
        exit_code: -1,
        stdout: null,
        stderr: `Error executing command: ${problem ?? 'the server is shutting down'}`,
      });
    return await new Promise<BashOutput>((resolve) => {
      const child = spawn('/bin/sh', ['-c', command.command], {
        cwd: command.cwd ?? undefined,
        env: sanitizedEnv(),
        detached: true, // setsid: the command and its children form a group we can signal as one
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      pid = child.pid;
      let order = 0;
      let kept = 0;
      /** Bytes of output past maxOutputChars. */
      let dropped = 0;
      const buffers = { stdout: '', stderr: '' };
      const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
      const take = (stream: 'stdout' | 'stderr', text: string) => {
        const room = Math.max(0, limits.maxOutputChars - kept);
        if (text.length > room) {
          dropped += Buffer.byteLength(text.slice(room));
          text = text.slice(0, room);
        }
        kept += text.length;
        buffers[stream] += text;
        while (buffers[stream].length > limits.chunkChars) {
          const chunk = buffers[stream].slice(0, limits.chunkChars);
          buffers[stream] = buffers[stream].slice(limits.chunkChars);
          emit({
            order: order++,
            exit_code: null,
            stdout: stream === 'stdout' ? chunk : null,
            stderr: stream === 'stderr' ? chunk : null,
          });
        }
      };
      // Past the cap output is only counted, never decoded: `yes` under a 20 s timeout is ~21 GB, whose
      // decoding (then thrown away) took ~15 s of the server's CPU.
      const read = (stream: 'stdout' | 'stderr') => (data: Buffer) => {
        if (kept >= limits.maxOutputChars) dropped += data.length;
        else take(stream, decoders[stream].write(data));
      };
      child.stdout.on('data', read('stdout'));
      child.stderr.on('data', read('stderr'));

      let timedOut = false;
      let stoppedByServer = false;
      let finished = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (exitCode: number, startError?: string) => {
        if (finished) return;
        finished = true;
        for (const t of timers) clearTimeout(t);
        take('stdout', decoders.stdout.end());
        take('stderr', decoders.stderr.end());
        let stderr = buffers.stderr;
        if (startError !== undefined) stderr += `Error executing command: ${startError}`;
        if (dropped > 0) stderr += `\n[agentd: ${dropped} more bytes of output were dropped]`;
        // The SDK tells a timeout by exit_code -1 and "timed out" in stderr (OpenHands' server adds no note).
        if (timedOut && !stoppedByServer)
          stderr += `${stderr ? '\n' : ''}Command timed out after ${command.timeout} seconds`;
        resolve(
          emit({
            order: startError !== undefined ? 0 : order,
            exit_code: exitCode,
            stdout: buffers.stdout || null,
            stderr: stderr || null,
          }),
        );
      };
      const terminate = () => {
        killGroup(pid, 'SIGTERM');
        timers.push(
          setTimeout(() => {
            killGroup(pid, 'SIGKILL');
            // A process outside the group (it called setsid) may still hold the pipes: stop reading.
            timers.push(
              setTimeout(() => {
                child.stdout.destroy();
                child.stderr.destroy();
                finish(-1);
              }, 1000),
            );
          }, limits.killGraceMs),
        );
      };
      timers.push(
        setTimeout(() => {
          timedOut = true;
          terminate();
        }, command.timeout * 1000),
      );
      stopNow = () => {
        timedOut = true;
        stoppedByServer = true;
        terminate();
      };
      child.on('error', (error) => {
        if (child.pid === undefined) finish(-1, error.message);
      });
      child.on('close', (code, signal) => {
        if (timedOut) return finish(-1);
        finish(code ?? (signal ? -(constants.signals[signal] ?? 1) : -1));
      });
    });
  })();
  return { done, kill: () => stopNow() };
}
