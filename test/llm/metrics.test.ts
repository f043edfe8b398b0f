// Metrics keep OpenHands' per-response lists (costs, response_latencies) and carry them across a
// restore from a stored snapshot, as a conversation's runtime does after a restart.
import { describe, expect, it } from 'vitest';
import { emptyUsage, Metrics } from '../../src/llm/metrics.js';
import type { LlmResponse } from '../../src/llm/types.js';

const response = (id: string, cost: number, latencyMs: number) =>
  ({ id, cost, latencyMs, usage: { ...emptyUsage(), prompt_tokens: 10 } }) as unknown as LlmResponse;

type Entry = {
  costs: { model: string; cost: number; timestamp: number }[];
  response_latencies: { model: string; latency: number; response_id: string }[];
};
const entryOf = (m: Metrics) => (m.snapshot().usage_to_metrics as Record<string, Entry>).agent!;

describe('Metrics', () => {
  it('records a latency in seconds per response and a cost per response that cost something', () => {
    const metrics = new Metrics('agent', 'gpt-x');
    metrics.add(response('r1', 0.5, 1500));
    metrics.add(response('r2', 0, 250));
    const entry = entryOf(metrics);
    expect(entry.costs).toEqual([{ model: 'gpt-x', cost: 0.5, timestamp: expect.any(Number) }]);
    expect(entry.response_latencies).toEqual([
      { model: 'gpt-x', latency: 1.5, response_id: 'r1' },
      { model: 'gpt-x', latency: 0.25, response_id: 'r2' },
    ]);
  });

  it('continues the lists from a stored snapshot, and restores one stored before they existed', () => {
    const first = new Metrics('agent', 'gpt-x');
    first.add(response('r1', 0.5, 1000));
    const stored = JSON.parse(JSON.stringify(entryOf(first)));

    const restored = new Metrics('agent', 'gpt-x');
    restored.restore(stored);
    restored.add(response('r2', 0.25, 2000));
    const entry = entryOf(restored);
    expect(entry.costs.map((c) => c.cost)).toEqual([0.5, 0.25]);
    expect(entry.response_latencies.map((l) => l.response_id)).toEqual(['r1', 'r2']);

    const old = new Metrics('agent', 'gpt-x');
    old.restore({ accumulated_cost: 1 });
    expect(entryOf(old)).toMatchObject({ accumulated_cost: 1, costs: [], response_latencies: [] });
  });
});
