// max_budget_per_task stops a run: the scripted LLM reports usage, prices turn it into cost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  info,
  startConversation,
  waitForEvent,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  // A server-side price for the scripted model: $1 per 1000 prompt tokens, $2 per 1000 completion tokens.
  server = await startServer({
    toolOptions: { noChangeTimeoutSeconds: 2 },
    prices: { 'budget-model': { input_cost_per_token: 0.001, output_cost_per_token: 0.002 } },
  });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

// Each step costs 1000 × 0.001 + 500 × 0.002 = $2.
const echo = (n: number): ScriptStep => ({
  toolCalls: [{ name: 'terminal', arguments: { command: `echo step-${n}` } }],
  usage: { prompt_tokens: 1000, completion_tokens: 500 },
});

describe('max_budget_per_task', () => {
  it('stops the run with MaxBudgetReached once the accumulated cost passes the request budget', async () => {
    const { id, key } = await startConversation(server, llm, [echo(1), echo(2), echo(3), echo(4)], {
      model: 'openai/budget-model',
      extra: { max_budget_per_task: 3 },
    });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('error');
    // $2 after the first call (under $3), $4 after the second: stop before a third call.
    expect(llm.requestsFor(key)).toHaveLength(2);
    const events = await allEvents(server, id);
    const error = events.find((e) => e.kind === 'ConversationErrorEvent') as Ev & { detail: string };
    expect(error).toMatchObject({ source: 'environment', code: 'MaxBudgetReached' });
    expect(error.detail).toContain('$3.0000');
    expect(error.detail).toContain('$4.0000');
    // The second step's action still ran: the budget is checked between steps.
    expect(events.filter((e) => e.kind === 'ObservationEvent')).toHaveLength(2);
    const stats = (await info(server, id)).stats as {
      usage_to_metrics: Record<string, { accumulated_cost: number; max_budget_per_task: number }>;
    };
    expect(stats.usage_to_metrics.agent).toMatchObject({ accumulated_cost: 4, max_budget_per_task: 3 });
    // OpenHands' Metrics lists: a cost and a latency (seconds, with the response id) per LLM call.
    const metrics = stats.usage_to_metrics.agent as unknown as {
      costs: { model: string; cost: number; timestamp: number }[];
      response_latencies: { model: string; latency: number; response_id: string }[];
      accumulated_token_usage: { model: string };
    };
    const model = metrics.accumulated_token_usage.model;
    expect(metrics.costs).toEqual([
      { model, cost: 2, timestamp: expect.any(Number) },
      { model, cost: 2, timestamp: expect.any(Number) },
    ]);
    expect(metrics.response_latencies).toHaveLength(2);
    for (const latency of metrics.response_latencies) {
      expect(latency).toEqual({ model, latency: expect.any(Number), response_id: expect.any(String) });
      expect(latency.latency).toBeGreaterThanOrEqual(0);
      expect(latency.response_id).not.toBe('');
    }

    // Running again spends nothing more: the budget is checked before the LLM call too.
    await api(server, `/api/conversations/${id}/run`, { method: 'POST' });
    await waitForEvent(server, id, (e) => e.code === 'MaxBudgetReached' && e.id !== error.id);
    expect(await waitForStatus(server, id, ['error'])).toBe('error');
    expect(llm.requestsFor(key)).toHaveLength(2);
  });

  it("uses the user's settings budget, and the LLM's own per-token prices", async () => {
    const stored = await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ max_budget_per_task: 0.5 }),
    });
    expect(stored.status).toBe(200);
    llm.script('sk-own-prices', [echo(1), echo(2), echo(3)]);
    const { id } = await startConversation(server, llm, [], {
      // No server price for this model; the LLM carries its own ($0.3 per step).
      agent: {
        llm: {
          model: 'openai/priced-by-request',
          api_key: 'sk-own-prices',
          base_url: llm.openaiBaseUrl,
          num_retries: 0,
          usage_id: 'agent',
          input_cost_per_token: 0.0001,
          output_cost_per_token: 0.0004,
        },
      },
    });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('error');
    expect(llm.requestsFor('sk-own-prices')).toHaveLength(2);
    const error = (await allEvents(server, id)).find((e) => e.kind === 'ConversationErrorEvent');
    expect(error).toMatchObject({ code: 'MaxBudgetReached' });
    await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ max_budget_per_task: null }),
    });
  });

  it('rejects a non-positive budget with 422', async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { llm: { model: 'openai/x', api_key: 'k' } },
        workspace: { working_dir: '/tmp' },
        max_budget_per_task: 0,
      }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]!.loc).toEqual(['body', 'max_budget_per_task']);
  });
});
