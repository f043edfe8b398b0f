// Running a response's actions: up to `concurrency` at once and one at a time per tool (one shell
// never runs two commands together) unless the tool says its calls may overlap (`concurrent`),
// pre-tool-use hooks before each, post-tool-use hooks after the answers are recorded, and answers
// emitted in call order. An interrupt answers whatever did not finish with an AgentErrorEvent.
import type { AnyEvent } from '../events/index.js';
import type { HookRunner } from '../hooks/index.js';
import type { Tool } from '../tools/index.js';
import { type ActionEventT, agentError, base } from './agent-events.js';
import { hookExecutionEvents, rejection } from './hook-events.js';
import type { AgentHost } from './host.js';

const INTERRUPTED = Symbol('interrupted');

export class ToolExecution {
  /** Per-tool chains, so calls to one tool (one shell) never overlap. */
  private readonly toolLocks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly tools: ReadonlyMap<string, Tool>,
    private readonly concurrency: number,
    private readonly hooks: HookRunner | null,
  ) {}

  /**
   * Runs actions and emits their answers in call order; `errors` holds the calls that could not
   * become actions (answered with an AgentErrorEvent, never run). `finished` when a FinishAction ran.
   */
  async execute(
    host: AgentHost,
    actions: ActionEventT[],
    errors: ReadonlyMap<string, string> = new Map(),
  ): Promise<'continue' | 'finished' | 'interrupted'> {
    const results: (AnyEvent | typeof INTERRUPTED)[] = new Array(actions.length);
    let next = 0;
    const worker = async () => {
      while (next < actions.length) {
        const index = next++;
        const action = actions[index]!;
        const error = errors.get(action.id);
        results[index] = error !== undefined ? agentError(action, error) : await this.runOne(action, host);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, actions.length) }, worker));
    await host.turn?.();
    if (host.signal.aborted) {
      const answers = actions.map((a, i) =>
        results[i] === undefined || results[i] === INTERRUPTED
          ? agentError(a, 'Tool call interrupted before completion. The conversation was paused.')
          : (results[i] as AnyEvent),
      );
      await host.emit(answers);
      return 'interrupted';
    }
    const answers = results as AnyEvent[];
    await host.emit(answers);
    await this.afterToolUse(host, actions, answers);
    if (
      actions.some(
        (a, i) =>
          (a.action as { kind?: string } | null)?.kind === 'FinishAction' &&
          answers[i]!.kind === 'ObservationEvent',
      )
    ) {
      await host.setStatus('finished');
      return 'finished';
    }
    return 'continue';
  }

  private async runOne(event: ActionEventT, host: AgentHost): Promise<AnyEvent | typeof INTERRUPTED> {
    const { signal } = host;
    const tool = this.tools.get(event.tool_name)!;
    const previous = (!tool.concurrent && this.toolLocks.get(tool.name)) || Promise.resolve();
    // The tool's own call, which may outlive an interrupt (a terminal waits a moment for its prompt
    // after C-c): the next call of a tool that is not concurrent waits for it too, not only for the race.
    let execution: Promise<unknown> = Promise.resolve();
    const run = previous.then(async (): Promise<AnyEvent | typeof INTERRUPTED> => {
      if (signal.aborted) return INTERRUPTED;
      try {
        const refused = await this.blockedByHook(event, host);
        if (signal.aborted) return INTERRUPTED;
        if (refused) return refused;
        const interrupt = aborted(signal);
        const executing = tool.execute(event.action, host.toolContext);
        execution = executing.catch(() => undefined);
        const observation = await Promise.race([executing, interrupt.promise]);
        interrupt.release();
        if (observation === INTERRUPTED) return INTERRUPTED;
        return {
          ...base('environment'),
          tool_name: event.tool_name,
          tool_call_id: event.tool_call_id,
          observation,
          action_id: event.id,
          kind: 'ObservationEvent',
        } as AnyEvent;
      } catch (error) {
        return agentError(event, `Error executing tool '${event.tool_name}': ${(error as Error).message}`);
      }
    });
    if (!tool.concurrent) {
      const settled = () => execution;
      this.toolLocks.set(tool.name, run.then(settled, settled));
    }
    return run;
  }

  /**
   * Pre-tool-use hooks see the action before it runs; a blocking hook turns it into a
   * UserRejectObservation (rejection_source `hook`) with the hook's reason, and the tool never runs.
   */
  private async blockedByHook(event: ActionEventT, host: AgentHost): Promise<AnyEvent | null> {
    if (!this.hooks?.has('pre_tool_use')) return null;
    const { blocked, runs } = await this.hooks.preToolUse(
      event.tool_name,
      event.action as Record<string, unknown>,
      host.signal,
    );
    await host.emit(hookExecutionEvents(runs, { actionId: event.id }));
    return blocked === null ? null : rejection(event, blocked, 'hook');
  }

  /** Post-tool-use hooks, once the results are recorded; they inform, they cannot undo. */
  private async afterToolUse(host: AgentHost, actions: ActionEventT[], answers: AnyEvent[]): Promise<void> {
    if (!this.hooks?.has('post_tool_use')) return;
    for (const [i, answer] of answers.entries()) {
      if (answer.kind !== 'ObservationEvent') continue;
      const action = actions[i]!;
      const runs = await this.hooks.postToolUse(
        action.tool_name,
        action.action as Record<string, unknown>,
        answer.observation as Record<string, unknown>,
        host.signal,
      );
      await host.emit(hookExecutionEvents(runs, { actionId: action.id }));
    }
  }
}

/** Resolves INTERRUPTED on abort; `release` drops the listener (the run's signal outlives many calls). */
function aborted(signal: AbortSignal): { promise: Promise<typeof INTERRUPTED>; release(): void } {
  let onAbort = () => {};
  const promise = new Promise<typeof INTERRUPTED>((resolve) => {
    onAbort = () => resolve(INTERRUPTED);
    if (signal.aborted) resolve(INTERRUPTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, release: () => signal.removeEventListener('abort', onAbort) };
}
