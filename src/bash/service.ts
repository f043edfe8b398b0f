// BashService: starts commands, records their events in the bounded log, and publishes each event to
// the subscribers (the /sockets/bash-events readers). Commands run with the rights of the server;
// their events are the owner's (the user whose key started them), read and cleared by that user only.
import { randomUUID } from 'node:crypto';
import { nowTimestamp } from '../events/index.js';
import { BashEventLog } from './event-log.js';
import { type RunLimits, type RunningCommand, runCommand } from './runner.js';
import type {
  BashCommand,
  BashError,
  BashEvent,
  BashEventPage,
  BashOutput,
  BashSearch,
  ExecuteBashRequest,
} from './schemas.js';

export interface BashLimits extends RunLimits {
  /** Events kept (oldest dropped first). */
  maxEvents: number;
  /** Characters of output kept over all events. */
  maxChars: number;
  /** Commands running at once; more is refused (TooManyCommandsError). */
  maxRunning: number;
  /** Socket readers at once (OpenHands: 50). */
  maxSubscribers: number;
  /** JSON bytes one search page or batch get answers (one event larger than this comes alone). */
  maxPageBytes: number;
}

export const DEFAULT_BASH_LIMITS: BashLimits = {
  chunkChars: 1024 * 1024,
  maxOutputChars: 16 * 1024 * 1024,
  killGraceMs: 1000,
  maxEvents: 10_000,
  maxChars: 64 * 1024 * 1024,
  maxRunning: 64,
  maxSubscribers: 50,
  maxPageBytes: 8 * 1024 * 1024,
};

export class TooManyCommandsError extends Error {
  constructor(max: number) {
    super(`Too many bash commands running (at most ${max}); wait for one to end`);
    this.name = 'TooManyCommandsError';
  }
}

export type BashListener = (event: BashEvent) => void;

interface Subscriber {
  owner: string;
  listener: BashListener;
}

const hexId = () => randomUUID().replaceAll('-', '');
const utcNow = () => `${nowTimestamp()}Z`;

export class BashService {
  readonly limits: BashLimits;
  private readonly log: BashEventLog;
  private readonly running = new Set<RunningCommand>();
  private readonly subscribers = new Set<Subscriber>();

  constructor(limits: Partial<BashLimits> = {}) {
    this.limits = { ...DEFAULT_BASH_LIMITS, ...limits };
    this.log = new BashEventLog(this.limits.maxEvents, this.limits.maxChars, this.limits.maxPageBytes);
  }

  /** Starts the owner's command in the background and answers its BashCommand event at once. */
  start(request: ExecuteBashRequest, owner: string): BashCommand {
    return this.launch(request, owner).command;
  }

  /** Runs the owner's command and answers its last BashOutput (the one with the exit code). */
  execute(request: ExecuteBashRequest, owner: string): Promise<BashOutput> {
    return this.launch(request, owner).done;
  }

  get(id: string, owner: string): BashEvent | null {
    return this.log.get(id, owner);
  }

  /** One item per id, in order (null where missing); BatchTooLargeError past maxPageBytes. */
  batch(ids: readonly string[], owner: string): (BashEvent | null)[] {
    return this.log.batch(ids, owner);
  }

  search(query: BashSearch, owner: string): BashEventPage {
    return this.log.search(query, owner);
  }

  all(owner: string): BashEvent[] {
    return this.log.all(owner);
  }

  /** Forgets the owner's stored events (running commands go on and record what follows). */
  clear(owner: string): number {
    return this.log.clear(owner);
  }

  /** The owner's events as they come; null when the reader limit is reached, else the function that unsubscribes. */
  subscribe(listener: BashListener, owner: string): (() => void) | null {
    if (this.subscribers.size >= this.limits.maxSubscribers) return null;
    const subscriber = { owner, listener };
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  errorEvent(code: string, detail: string): BashError {
    return { id: hexId(), timestamp: utcNow(), code, detail, kind: 'BashError' };
  }

  /** Ends every running command (server shutdown) and waits for their final events. */
  async close(): Promise<void> {
    const all = [...this.running];
    for (const r of all) r.kill();
    await Promise.all(all.map((r) => r.done));
  }

  private launch(
    request: ExecuteBashRequest,
    owner: string,
  ): { command: BashCommand; done: Promise<BashOutput> } {
    if (this.running.size >= this.limits.maxRunning) throw new TooManyCommandsError(this.limits.maxRunning);
    const command: BashCommand = {
      id: hexId(),
      timestamp: utcNow(),
      command: request.command,
      cwd: request.cwd ?? null,
      timeout: request.timeout ?? 300,
      kind: 'BashCommand',
    };
    this.record(command, owner);
    const run = runCommand(command, this.limits, (output) => {
      const event: BashOutput = {
        id: hexId(),
        timestamp: utcNow(),
        command_id: command.id,
        order: output.order,
        exit_code: output.exit_code,
        stdout: output.stdout,
        stderr: output.stderr,
        kind: 'BashOutput',
      };
      this.record(event, owner);
      return event;
    });
    this.running.add(run);
    void run.done.finally(() => this.running.delete(run));
    return { command, done: run.done };
  }

  private record(event: BashEvent, owner: string): void {
    this.log.append(event, owner);
    for (const { owner: reader, listener } of this.subscribers) {
      if (reader !== owner) continue;
      try {
        listener(event);
      } catch {
        // a failing reader must not stop the command or the other readers
      }
    }
  }
}
