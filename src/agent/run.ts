// The run loop and the operations around it: a run steps the agent until it finishes, errors, waits
// for confirmation, is stuck, is paused or interrupted, or reaches its iteration limit.
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import { type Agent, agentError, pendingActions } from './agent.js';
import { rejection } from './hook-events.js';
import type { AgentHost } from './host.js';
import { isStuck } from './stuck.js';

export interface RunOptions {
  maxIterations: number;
  stuckDetection: boolean;
}

const RESTART =
  'A restart occurred while this tool was in progress. This may indicate a fatal memory error or system crash. The tool execution was interrupted and did not complete.';

export async function run(agent: Agent, host: AgentHost, options: RunOptions): Promise<void> {
  // A finished conversation with no new message has nothing to do.
  if (host.status === 'finished') return;
  await host.setStatus('running');
  for (let iteration = 1; ; iteration++) {
    const outcome = await agent.step(host);
    // A stop hook may send a finished agent back to work; that counts as an iteration.
    if (outcome !== 'continue' && !(outcome === 'finished' && !(await agent.mayStop(host)))) return;
    if (options.stuckDetection && isStuck(host.events())) {
      await host.setStatus('stuck');
      return;
    }
    if (host.pauseRequested() || host.signal.aborted) return;
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
