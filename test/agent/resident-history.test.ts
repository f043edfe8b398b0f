// ResidentHistory keeps of a history what the agent needs: a view built from it must be the view of
// the whole history, event for event and Message for Message, the last stretch must be whole, and the
// pending scan and stuck detection must find what they find in the whole history.
// Histories are generated from fixed seeds (no randomness between runs), with tool batches, missing
// and stray results, events the view skips, requests, and Condensations that forget any part of the
// view (earlier summaries and half batches included), with and without a summary.
import { describe, expect, it } from 'vitest';
import { isStuck, MessageView, pendingActions, ResidentHistory } from '../../src/agent/index.js';
import type { AnyEvent } from '../../src/events/index.js';
import { action, ev, result, system, user } from '../support/view-events.js';

/** A small deterministic generator (mulberry32). */
function generator(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** A history of about `length` events, with the view it builds as it goes (what a condenser reads). */
function history(seed: number, length: number): AnyEvent[] {
  const pick = generator(seed);
  const events: AnyEvent[] = [system()];
  const view = new MessageView(new Map());
  let responses = 0;
  while (events.length < length) {
    const roll = pick(100);
    if (roll < 15) {
      events.push(user(`u${events.length}`));
    } else if (roll < 55) {
      // A batch of one to three calls; most get a result, some not yet, some out of order.
      const response = `r${++responses}`;
      const batch = Array.from({ length: 1 + pick(3) }, () => action(response));
      events.push(...batch);
      for (const a of pick(2) ? batch : [...batch].reverse()) {
        if (pick(10) === 0) continue;
        events.push(result(a, `o${a.id}`, pick(8) === 0 ? 'AgentErrorEvent' : 'ObservationEvent'));
      }
    } else if (roll < 62) {
      // A result whose call is in no view.
      events.push(
        ev('ObservationEvent', {
          source: 'environment',
          tool_name: 'terminal',
          tool_call_id: `stray_${events.length}`,
          observation: { kind: 'TerminalObservation', content: [] },
        }),
      );
    } else if (roll < 72) {
      events.push(ev('MessageEvent', { source: 'agent', llm_message: { role: 'assistant', content: [] } }));
    } else if (roll < 82) {
      events.push(ev(pick(2) ? 'ConversationStateUpdateEvent' : 'PauseEvent', { source: 'environment' }));
    } else if (roll < 86) {
      events.push(ev('CondensationRequest', { source: 'environment' }));
    } else {
      // Forgets a slice of the view, or any of its events one by one (summaries and half batches too).
      const seen = view.update(events) && view.events;
      const ids = seen.map((e) => e.id);
      const start = pick(Math.max(1, ids.length));
      const forgotten = pick(3) ? ids.slice(start, start + pick(40)) : ids.filter(() => pick(4) === 0);
      const summarized = pick(3) > 0;
      events.push(
        ev('Condensation', {
          source: 'environment',
          forgotten_event_ids: forgotten,
          summary: summarized ? `S${events.length}` : null,
          summary_offset: summarized ? pick(4) : null,
          llm_response_id: 'r-sum',
        }),
      );
    }
  }
  return events;
}

const viewOf = (events: readonly AnyEvent[]) => {
  const view = new MessageView(new Map());
  const messages = view.update(events);
  return {
    events: view.events.map((e) => `${e.kind}:${e.kind === 'CondensationSummaryEvent' ? e.summary : e.id}`),
    messages,
    requested: view.condensationRequested,
  };
};

const sinceLastCondensation = (events: readonly AnyEvent[]) =>
  events.slice(events.findLastIndex((e) => e.kind === 'Condensation') + 1);

describe('ResidentHistory', () => {
  it('gives the view of the whole history after every event, and the whole stretch since the last Condensation', () => {
    let partial = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const all = history(seed, 400);
      const resident = new ResidentHistory();
      // As the runtime uses it: one view, updated as the history grows (built again when it is replaced).
      const live = new MessageView(new Map());
      for (let i = 0; i < all.length; i++) {
        resident.add(all[i]!);
        const whole = all.slice(0, i + 1);
        live.update(resident.events);
        const expected = viewOf(whole);
        expect(viewOf(resident.events), `seed ${seed}, event ${i}`).toEqual(expected);
        expect(live.messages).toEqual(expected.messages);
        expect(sinceLastCondensation(resident.events)).toEqual(sinceLastCondensation(whole));
        expect(pendingActions(resident.events)).toEqual(pendingActions(whole));
        expect(isStuck(resident.events)).toBe(isStuck(whole));
        if (!resident.partial) expect(resident.events).toEqual(whole);
        else partial += 1;
      }
    }
    // Most prefixes are past a Condensation that left events out (the rest checked whole above).
    expect(partial).toBeGreaterThan(40 * 300);
  });

  it('keeps one array while events are added, and starts a new one only at a Condensation', () => {
    const resident = new ResidentHistory();
    let array = resident.events;
    let replaced = 0;
    for (const event of history(7, 300)) {
      resident.add(event);
      if (resident.events !== array) {
        expect(event.kind).toBe('Condensation');
        replaced += 1;
      }
      array = resident.events;
    }
    expect(replaced).toBeGreaterThan(3);
  });

  it('leaves out nothing at a Condensation that forgot actions still waiting to run', () => {
    const call = (id: string) =>
      ev('ActionEvent', { source: 'agent', llm_response_id: 'r1', tool_call_id: id, action: { kind: 'X' } });
    const [a, b] = [call('c1'), call('c2')];
    const user = ev('MessageEvent', { source: 'user', llm_message: { role: 'user', content: [] } });
    const forced = ev('Condensation', { forgotten_event_ids: [a.id, b.id], summary: 'S', summary_offset: 1 });
    const all = [user, a, b, ev('CondensationRequest'), forced];
    const resident = new ResidentHistory();
    for (const e of all) resident.add(e);
    expect(pendingActions(resident.events)).toEqual([a, b]);
    expect(resident.events).toEqual(all);
    expect(resident.partial).toBe(false);
  });

  it('holds about what the view holds of a long, often condensed history, not all of it', () => {
    const pick = generator(3);
    const resident = new ResidentHistory();
    const view = new MessageView(new Map());
    let total = 0;
    for (let round = 0; round < 200; round++) {
      const chunk = history(1000 + round, 100).slice(1);
      for (const e of chunk) resident.add(e);
      total += chunk.length;
      // The condenser's usual cut: all of the view but its first two events.
      const ids = view.update(resident.events) && view.events.slice(2).map((e) => e.id);
      resident.add(
        ev('Condensation', {
          source: 'environment',
          forgotten_event_ids: ids.slice(0, ids.length - pick(5)),
          summary: `S${round}`,
          summary_offset: 2,
        }),
      );
    }
    expect(total).toBeGreaterThan(19_000);
    // What the last chunk and the view hold (a chunk may end with actions waiting, kept until answered).
    expect(resident.events.length).toBeLessThan(250);
    expect(resident.partial).toBe(true);
  });
});
