// OpenHands' /goal operations on a conversation: start, resume and stop its goal loop (goal-loop.ts),
// where the conversation is owned. A loop's messages go in as a client's would, without ending it.
import { GoalController } from '../agent/index.js';
import { ConversationRunningError, GoalRunningError, NoResumableGoalError } from './errors.js';
import { ConversationIntake } from './intake.js';
import type { ConversationRuntime } from './runtime.js';

export abstract class ConversationGoals extends ConversationIntake {
  /** Works toward `objective` in the conversation, audited after each run, for at most `maxIterations` rounds. */
  async startGoal(userId: string, id: string, objective: string, maxIterations: number): Promise<void> {
    return this.onOwner('startGoal', userId, id, [objective, maxIterations], async () => {
      this.beginGoal(
        userId,
        await this.runtime(userId, id),
        new GoalController(objective, maxIterations),
        false,
      );
    });
  }

  /** Goes on with the last goal that was stopped, paused or cut off, from the rounds it had done. */
  async resumeGoal(userId: string, id: string): Promise<void> {
    return this.onOwner('resumeGoal', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      const last = runtime.state.goal;
      if (!last || last.status === 'complete' || last.status === 'capped') throw new NoResumableGoalError(id);
      const goal = new GoalController(last.objective, last.max_iterations, last.iteration);
      this.beginGoal(userId, runtime, goal, true);
    });
  }

  /** Stops the goal loop (its status `interrupted`, resumable); a run under way goes on. */
  async stopGoal(userId: string, id: string): Promise<void> {
    return this.onOwner('stopGoal', userId, id, [], async () => {
      await this.local(userId, id);
      await this.goals.stop(id);
    });
  }

  private beginGoal(
    userId: string,
    runtime: ConversationRuntime,
    goal: GoalController,
    resume: boolean,
  ): void {
    const id = runtime.conversationId;
    if (this.goals.active(id)) throw new GoalRunningError(id);
    // The judge would read a transcript the loop did not make.
    if (runtime.running || runtime.status === 'running') throw new ConversationRunningError(id);
    const message = (text: string) => ({
      role: 'user' as const,
      content: [{ type: 'text' as const, text }],
      run: true,
    });
    this.goals.start(runtime, goal, resume, {
      send: (text) => this.deliverAsOwner(userId, id, message(text), undefined, true),
      hold: (work) => this.runtimes.hold(runtime, work),
      failed: (error) =>
        this.logFor(id).warn(
          { detail: (error as Error)?.message ?? String(error) },
          'goal loop ended on an error',
        ),
    });
  }
}
