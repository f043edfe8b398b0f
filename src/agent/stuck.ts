// Stuck detection over the events since the last user message, with OpenHands' thresholds (a start
// request's `stuck_detection_thresholds` may change them): the same action with the same result 4
// times, the same action failing once more than 3 times, 3 agent messages in a row with no user in
// between, or two actions alternating for 6 rounds.
import type { AnyEvent } from '../events/index.js';

/** OpenHands' StuckDetectionThresholds. */
export interface StuckThresholds {
  /** The same action and result this many times in a row. */
  action_observation: number;
  /** The same action failing the same way more than this many times in a row. */
  action_error: number;
  /** This many agent messages in a row. */
  monologue: number;
  /** Two actions and their results alternating, this many of them in all. */
  alternating_pattern: number;
}

export const DEFAULT_STUCK_THRESHOLDS: StuckThresholds = {
  action_observation: 4,
  action_error: 3,
  monologue: 3,
  alternating_pattern: 6,
};

/** How many events back a check looks at least (more for larger thresholds: two per action). */
const WINDOW = 40;

type Pair = { action: string; result: string; error: boolean };

/** What identifies an action or a result for repetition, without ids and timestamps. */
function signature(value: unknown): string {
  return JSON.stringify(value, (key, v) =>
    key === 'id' ||
    key === 'timestamp' ||
    key === 'action_id' ||
    key === 'tool_call_id' ||
    key === 'llm_response_id'
      ? undefined
      : v,
  );
}

function sinceLastUserMessage(events: readonly AnyEvent[], window: number): AnyEvent[] {
  const start = Math.max(0, events.length - window);
  let from = start;
  for (let i = events.length - 1; i >= start; i--) {
    const e = events[i] as { kind: string; source?: string };
    // A Condensation changed what the LLM sees: a loop is looked for in what came after it, as after
    // the user's last message (and a runtime whose history a Condensation trimmed keeps no more).
    if ((e.kind === 'MessageEvent' && e.source === 'user') || e.kind === 'Condensation') {
      from = i + 1;
      break;
    }
  }
  return events.slice(from);
}

function pairs(events: readonly AnyEvent[]): Pair[] {
  const actions = new Map<string, string>();
  const out: Pair[] = [];
  for (const e of events as (AnyEvent & Record<string, unknown>)[]) {
    if (e.kind === 'ActionEvent')
      actions.set(
        e.tool_call_id as string,
        signature({
          tool: e.tool_name,
          action: e.action,
          call: (e.tool_call as { arguments: string }).arguments,
        }),
      );
    else if (e.kind === 'ObservationEvent' || e.kind === 'AgentErrorEvent') {
      const action = actions.get(e.tool_call_id as string);
      if (action === undefined) continue;
      const result =
        e.kind === 'ObservationEvent'
          ? signature((e.observation as { content?: unknown }).content)
          : signature(e.error);
      out.push({ action, result, error: e.kind === 'AgentErrorEvent' });
    }
  }
  return out;
}

export function isStuck(
  events: readonly AnyEvent[],
  thresholds: StuckThresholds = DEFAULT_STUCK_THRESHOLDS,
): boolean {
  const largest = Math.max(...Object.values(thresholds));
  const recent = sinceLastUserMessage(events, Math.max(WINDOW, 2 * (largest + 1)));
  const p = pairs(recent);
  const lastN = (n: number) => p.slice(-n);
  const same = (list: Pair[]) =>
    list.every((x) => x.action === list[0]!.action && x.result === list[0]!.result);
  const repeated = lastN(thresholds.action_observation);
  if (repeated.length === thresholds.action_observation && same(repeated)) return true;
  const errors = lastN(thresholds.action_error + 1);
  if (errors.length === thresholds.action_error + 1 && errors.every((x) => x.error) && same(errors))
    return true;
  const alternating = lastN(thresholds.alternating_pattern);
  if (
    alternating.length === thresholds.alternating_pattern &&
    alternating.length >= 3 &&
    alternating.every(
      (x, i) => x.action === alternating[i % 2]!.action && x.result === alternating[i % 2]!.result,
    ) &&
    alternating[0]!.action !== alternating[1]!.action
  ) {
    return true;
  }
  let monologue = 0;
  for (let i = recent.length - 1; i >= 0; i--) {
    const e = recent[i] as { kind: string; source?: string };
    if (e.kind === 'MessageEvent' && e.source === 'agent') monologue++;
    else if (e.kind === 'MessageEvent' || e.kind === 'ActionEvent') break;
  }
  return monologue >= thresholds.monologue;
}
