// OpenHands' /goal loop, driven inside a conversation: the objective goes in as a user message and
// runs; after each run the agent's LLM audits the transcript (agent/goal.ts), and the loop sends the
// judge's follow-up and runs again, until the objective is judged done or the cap of audit rounds is
// reached. Every status is a ConversationStateUpdateEvent `goal`, also kept in the state, so a resume
// (even after a restart) goes on from the round it reached. A pause, an interrupt or a failed run
// ends the loop as `interrupted` (resumable); so do a stop and a client's own message, and a restart
// (marked when the conversation is next used: goalCutOff).
import { setTimeout as sleep } from 'node:timers/promises';
import { GOAL_RESUME_PROMPT, type GoalController, type GoalStatus } from '../agent/index.js';
import type { ConversationRuntime } from './runtime.js';

/** While a run waits for the user's confirmation (an accept starts the next run), the loop looks this often. */
const CONFIRMATION_POLL_MS = 250;

/** What a loop needs of its conversation. */
export interface GoalIo {
  /** Appends the loop's user message and starts a run, as a client's message with `run: true` does. */
  send(text: string): Promise<void>;
  /** Keeps the runtime live (no idle close) while `work` runs. */
  hold(work: () => Promise<void>): Promise<void>;
  /** Told of a loop that ended on an error (the judge's LLM failed, a send failed). */
  failed(error: unknown): void;
}

class GoalLoop {
  private stopped = false;
  private readonly abort = new AbortController();
  private wake: () => void = () => {};
  /** Settles when the loop is stopped: every wait of the loop races it. */
  private readonly stopping = new Promise<void>((resolve) => {
    this.wake = resolve;
  });
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly runtime: ConversationRuntime,
    private readonly controller: GoalController,
    private readonly io: GoalIo,
  ) {}

  /** Ends the loop where it waits; a run under way goes on (as OpenHands' stop, which is not an interrupt). */
  stop(): void {
    this.stopped = true;
    this.abort.abort(new Error('goal loop stopped'));
    this.wake();
  }

  async drive(resume: boolean): Promise<void> {
    const goal = this.controller;
    try {
      await this.record(goal.status(true, 'running'));
      await this.io.send(resume ? GOAL_RESUME_PROMPT : goal.objective);
      for (;;) {
        await this.runsSettled();
        if (this.stopped) return;
        // A stuck run is audited too: the judge's follow-up is what gets the agent out of a loop.
        if (this.runtime.status === 'paused' || this.runtime.status === 'error') {
          await this.record(goal.status(false, 'interrupted'));
          return;
        }
        const events = await this.runtime.loadHistory();
        const verdict = await this.runtime.agent.judgeGoal(events, goal.objective, this.abort.signal);
        if (this.stopped) return;
        const step = goal.afterAudit(verdict);
        if ('done' in step) return await this.record(step.done);
        await this.record(goal.status(true, 'running', step.verdict));
        if (this.stopped) return;
        await this.io.send(step.followup);
      }
    } catch (error) {
      if (this.stopped) return;
      this.io.failed(error);
      await this.record(goal.status(false, 'interrupted')).catch(() => undefined);
    }
  }

  /** The `interrupted` status a stop leaves (resumable from the rounds done). */
  recordStopped(): Promise<void> {
    return this.record(this.controller.status(false, 'interrupted'));
  }

  private record(status: GoalStatus): Promise<void> {
    return recordGoal(this.runtime, status);
  }

  /** Waits until no run is under way and none waits for the user's confirmation, or the loop stops. */
  private async runsSettled(): Promise<void> {
    while (!this.stopped) {
      const run = this.runtime.running;
      if (run) await Promise.race([run.catch(() => undefined), this.stopping]);
      else if (this.runtime.status === 'waiting_for_confirmation')
        await Promise.race([sleep(CONFIRMATION_POLL_MS, undefined, { ref: false }), this.stopping]);
      else return;
    }
  }
}

/** A goal's status: the `goal` state update clients see, and the state a resume reads. */
function recordGoal(runtime: ConversationRuntime, status: GoalStatus): Promise<void> {
  return runtime.changeState('goal', status, (state) => ({ ...state, goal: status }));
}

/** Records the state's active goal as `interrupted`: no loop drives it any more. */
export function goalCutOff(runtime: ConversationRuntime): Promise<void> {
  return recordGoal(runtime, { ...runtime.state.goal!, active: false, status: 'interrupted' });
}

/** The goal loops under way, by conversation id: at most one per conversation. */
export class GoalLoops {
  private readonly loops = new Map<string, GoalLoop>();

  active(conversationId: string): boolean {
    return this.loops.has(conversationId);
  }

  /** Starts driving `controller`'s goal in the runtime's conversation (the caller checked it is free). */
  start(runtime: ConversationRuntime, controller: GoalController, resume: boolean, io: GoalIo): void {
    const id = runtime.conversationId;
    const loop = new GoalLoop(runtime, controller, io);
    this.loops.set(id, loop);
    loop.done = io
      .hold(() => loop.drive(resume))
      .finally(() => {
        if (this.loops.get(id) === loop) this.loops.delete(id);
      });
  }

  /**
   * Stops the conversation's loop, if one runs, once it has left what it was doing; with `record`, its
   * status becomes `interrupted` (resumable). False when none ran.
   */
  async stop(conversationId: string, record = true): Promise<boolean> {
    const loop = this.loops.get(conversationId);
    if (!loop) return false;
    this.loops.delete(conversationId);
    loop.stop();
    await loop.done.catch(() => undefined);
    if (record) await loop.recordStopped();
    return true;
  }

  /** Stops every loop without a status (the server is closing: a resume goes on from the last one). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.loops.keys()].map((id) => this.stop(id, false)));
  }
}
