// OpenHands' /goal on a conversation's page: start a goal (the agent works and is audited after each
// run until the objective is judged done or the audits are spent), see its progress as the `goal`
// state updates arrive, stop it, resume one that was interrupted.
import { useState } from 'preact/hooks';
import type { GoalStatus } from '../types.js';

const ENDED: Record<string, string> = {
  complete: 'Goal complete',
  capped: 'Goal not reached: audits spent',
  interrupted: 'Goal interrupted',
};

function progress(goal: GoalStatus): string {
  const audit = `audit ${goal.iteration}/${goal.max_iterations}`;
  if (!goal.verdict) return audit;
  const missing = goal.verdict.missing ? ` · missing: ${goal.verdict.missing}` : '';
  return `${audit} · ${Math.round(goal.verdict.score * 100)}% done${missing}`;
}

export function GoalPanel(props: {
  goal: GoalStatus | null;
  /** The conversation runs: a goal cannot start now. */
  busy: boolean;
  onStart: (objective: string) => Promise<void>;
  onStop: () => Promise<void>;
  onResume: () => Promise<void>;
}) {
  const { goal } = props;
  const [objective, setObjective] = useState('');
  const start = async (event: Event) => {
    event.preventDefault();
    const text = objective.trim();
    if (!text) return;
    await props.onStart(text);
    setObjective('');
  };
  return (
    <section class="goal" aria-label="Goal">
      {goal && (
        <p class={`goal-status goal-${goal.status}`}>
          <strong>{goal.active ? 'Goal' : ENDED[goal.status]}:</strong> {goal.objective}{' '}
          <span class="muted">({progress(goal)})</span>{' '}
          {goal.active && (
            <button type="button" onClick={() => void props.onStop()}>
              Stop goal
            </button>
          )}
          {goal.status === 'interrupted' && (
            <button type="button" onClick={() => void props.onResume()} disabled={props.busy}>
              Resume goal
            </button>
          )}
        </p>
      )}
      {!goal?.active && (
        <details>
          <summary>Work toward a goal…</summary>
          <form class="row" onSubmit={start}>
            <textarea
              name="objective"
              aria-label="Goal objective"
              rows={2}
              value={objective}
              placeholder="What must be true when the agent is done (it is checked after each run)"
              onInput={(e) => setObjective(e.currentTarget.value)}
            />
            <button type="submit" disabled={props.busy || !objective.trim()}>
              Start goal
            </button>
          </form>
        </details>
      )}
    </section>
  );
}
