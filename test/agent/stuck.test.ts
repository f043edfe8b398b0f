// Stuck detection's four patterns at OpenHands' thresholds and at a conversation's own.
import { describe, expect, it } from 'vitest';
import { DEFAULT_STUCK_THRESHOLDS, isStuck } from '../../src/agent/index.js';
import type { AnyEvent } from '../../src/events/index.js';

let call = 0;
/** An action and its result: an observation with `output`, or an error. */
function step(command: string, output: string, error = false): AnyEvent[] {
  const id = `call-${call++}`;
  const action = {
    kind: 'ActionEvent',
    tool_call_id: id,
    tool_name: 'terminal',
    action: { command },
    tool_call: { arguments: JSON.stringify({ command }) },
  };
  const result = error
    ? { kind: 'AgentErrorEvent', tool_call_id: id, error: output }
    : {
        kind: 'ObservationEvent',
        tool_call_id: id,
        observation: { content: [{ type: 'text', text: output }] },
      };
  return [action, result] as unknown as AnyEvent[];
}
const times = (n: number, make: (i: number) => AnyEvent[]) =>
  Array.from({ length: n }, (_, i) => make(i)).flat();
const agentSays = { kind: 'MessageEvent', source: 'agent' } as unknown as AnyEvent;
const userSays = { kind: 'MessageEvent', source: 'user' } as unknown as AnyEvent;

describe('stuck detection', () => {
  it("uses OpenHands' defaults", () => {
    expect(isStuck(times(3, () => step('ls', 'a')))).toBe(false);
    expect(isStuck(times(4, () => step('ls', 'a')))).toBe(true);
    expect(isStuck(times(3, () => step('bad', 'boom', true)))).toBe(false);
    expect(isStuck(times(4, () => step('bad', 'boom', true)))).toBe(true); // once more than 3
    expect(isStuck([agentSays, agentSays])).toBe(false);
    expect(isStuck([agentSays, agentSays, agentSays])).toBe(true);
    const alternate = (i: number) => (i % 2 ? step('a', '1') : step('b', '2'));
    expect(isStuck(times(5, alternate))).toBe(false);
    expect(isStuck(times(6, alternate))).toBe(true);
    // A user message starts over, and so does a Condensation: a loop is looked for in what came after
    // it, whether the history holds what it forgot or not (a runtime's resident history does not).
    expect(isStuck([...times(4, () => step('ls', 'a')), userSays])).toBe(false);
    const condensed = { kind: 'Condensation' } as unknown as AnyEvent;
    expect(isStuck([...times(2, () => step('ls', 'a')), condensed, ...times(2, () => step('ls', 'a'))])).toBe(
      false,
    );
    expect(isStuck([condensed, ...times(4, () => step('ls', 'a'))])).toBe(true);
  });

  it("takes a conversation's thresholds", () => {
    const t = { ...DEFAULT_STUCK_THRESHOLDS, action_observation: 2, action_error: 1, monologue: 5 };
    expect(
      isStuck(
        times(2, () => step('ls', 'a')),
        t,
      ),
    ).toBe(true);
    expect(
      isStuck(
        times(2, () => step('bad', 'boom', true)),
        t,
      ),
    ).toBe(true);
    expect(isStuck([agentSays, agentSays, agentSays, agentSays], t)).toBe(false);
    // Larger than the usual window of 40 events: still seen.
    const patient = { ...DEFAULT_STUCK_THRESHOLDS, action_observation: 30 };
    expect(
      isStuck(
        times(29, () => step('ls', 'a')),
        patient,
      ),
    ).toBe(false);
    expect(
      isStuck(
        times(30, () => step('ls', 'a')),
        patient,
      ),
    ).toBe(true);
  });
});
