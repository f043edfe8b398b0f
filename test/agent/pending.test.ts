import { describe, expect, it } from 'vitest';
import { pendingActions, recoverAfterCrash } from '../../src/agent/index.js';
import { type AnyEvent, newEventId } from '../../src/events/index.js';

let n = 0;
const action = (response: string, valid = true) => {
  n++;
  return {
    id: newEventId(),
    kind: 'ActionEvent',
    tool_call_id: `call_${n}`,
    tool_name: 'terminal',
    llm_response_id: response,
    action: valid ? { kind: 'TerminalAction', command: 'ls' } : null,
  } as unknown as AnyEvent;
};
const answer = (a: AnyEvent, kind = 'ObservationEvent') =>
  ({
    id: newEventId(),
    kind,
    tool_call_id: (a as { tool_call_id: string }).tool_call_id,
  }) as unknown as AnyEvent;
const message = (source: string) =>
  ({ id: newEventId(), kind: 'MessageEvent', source }) as unknown as AnyEvent;
const state = () =>
  ({ id: newEventId(), kind: 'ConversationStateUpdateEvent', key: 'stats' }) as unknown as AnyEvent;
const ids = (events: AnyEvent[]) => events.map((e) => (e as { tool_call_id: string }).tool_call_id);

describe('pendingActions', () => {
  it('finds the unanswered actions of the latest batch, past a user message sent while waiting', () => {
    const old = action('r1');
    const [a, b, c] = [action('r2'), action('r2'), action('r2', false)];
    const events = [message('user'), old, answer(old), state(), a, b, c, answer(a), message('user'), state()];
    expect(ids(pendingActions(events))).toEqual([(b as { tool_call_id: string }).tool_call_id]);
  });

  it('finds nothing once every action is answered or after an agent reply', () => {
    const a = action('r3');
    expect(pendingActions([a, answer(a, 'UserRejectObservation'), state()])).toEqual([]);
    expect(pendingActions([action('r4'), message('agent')])).toEqual([]);
    expect(pendingActions([])).toEqual([]);
  });

  it('gives crash recovery one AgentErrorEvent per unanswered action', () => {
    const [a, b] = [action('r5'), action('r5')];
    const recovered = recoverAfterCrash([message('user'), a, b, answer(a)]) as unknown as {
      kind: string;
      tool_call_id: string;
    }[];
    expect(recovered.map((e) => [e.kind, e.tool_call_id])).toEqual([
      ['AgentErrorEvent', (b as { tool_call_id: string }).tool_call_id],
    ]);
  });
});
