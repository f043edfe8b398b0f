// The run loop and the operations around it: a run steps the agent until it finishes, errors, waits
// for confirmation, is stuck, is paused or interrupted, or reaches its iteration limit.
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { Agent } from './agent.js';
import { agentError, pendingActions } from './agent-events.js';
import { rejection } from './hook-events.js';
import type { AgentHost } from './host.js';
import { isStuck, type StuckThresholds } from './stuck.js';

export interface RunOptions {
  maxIterations: number;
  stuckDetection: boolean;
  /** OpenHands' stuck_detection_thresholds; absent: its defaults. */
  stuckThresholds?: StuckThresholds;
  /** USD for the whole conversation (every LLM it uses); null = no limit. */
  maxBudgetPerTask?: number | null;
}

const RESTART =
  'A restart occurred while this tool was in progress. This may indicate a fatal memory error or system crash. The tool execution was interrupted and did not complete.';

export async function run(agent: Agent, host: AgentHost, options: RunOptions): Promise<void> {
  // A finished conversation with no new message has nothing to do.
  if (host.status === 'finished') return;
  await host.setStatus('running');
  // The first step on a turn of its own: whoever started the run (a request) is answered first.
  await host.turn?.();
  for (let iteration = 1; ; iteration++) {
    // Checked before each LLM call too, so a new run of a conversation over budget spends nothing.
    if (await overBudget(agent, host, options)) return;
    const outcome = await agent.step(host);
    // A stop hook may send a finished agent back to work; that counts as an iteration.
    if (outcome !== 'continue' && !(outcome === 'finished' && !(await agent.mayStop(host)))) return;
    if (options.stuckDetection && isStuck(host.events(), options.stuckThresholds)) {
      await host.setStatus('stuck');
      return;
    }
    // Other conversations and requests go first; a pause or interrupt meanwhile is seen just below.
    await host.turn?.();
    if (host.pauseRequested() || host.signal.aborted) return;
    if (await overBudget(agent, host, options)) return;
    if (iteration >= options.maxIterations) {
      await host.emit([
        {
          id: newEventId(),
          timestamp: nowTimestamp(),
          source: 'environment',
          code: 'MaxIterationsReached',
          detail: `Agent reached maximum iterations limit (${options.maxIterations}).`,
          kind: 'ConversationErrorEvent',
        } as AnyEvent,
      ]);
      await host.setStatus('error');
      return;
    }
  }
}

/** Stops the run with MaxBudgetReached once the conversation's LLM cost reaches its budget. */
async function overBudget(agent: Agent, host: AgentHost, options: RunOptions): Promise<boolean> {
  const limit = options.maxBudgetPerTask;
  if (limit == null) return false;
  const spent = agent.spent();
  if (spent < limit) return false;
  await host.emit([
    {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'environment',
      code: 'MaxBudgetReached',
      detail: `Agent reached maximum budget limit ($${limit.toFixed(4)}); accumulated cost $${spent.toFixed(4)}. Raise max_budget_per_task to continue.`,
      kind: 'ConversationErrorEvent',
    } as AnyEvent,
  ]);
  await host.setStatus('error');
  return true;
}

/** Rejects every action waiting for confirmation and returns the conversation to idle. */
export async function rejectPending(host: AgentHost, reason: string): Promise<void> {
  const rejections = pendingActions(host.events()).map((a) => rejection(a, reason, 'user'));
  await host.emit(rejections);
  await host.setStatus('idle');
}

/** After a crash: an AgentErrorEvent for each action the crash left without an answer. */
export function recoverAfterCrash(events: readonly AnyEvent[]): AnyEvent[] {
  return pendingActions(events).map((a) => agentError(a, RESTART));
}
