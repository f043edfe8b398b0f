// Usage and cost per usage id, in OpenHands' `stats` snapshot form.
import type { LlmResponse, TokenUsage } from './types.js';

export function emptyUsage(): TokenUsage {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    context_window: 0,
    per_turn_token: 0,
  };
}

export class Metrics {
  accumulatedCost = 0;
  readonly tokens = emptyUsage();
  lastResponseId = '';
  /** OpenHands' `costs`: one entry per response that cost something (zero costs are skipped, as there). */
  readonly costs: { model: string; cost: number; timestamp: number }[] = [];
  /** OpenHands' `response_latencies`: seconds per response, with the provider's response id. */
  readonly latencies: { model: string; latency: number; response_id: string }[] = [];
  /** Shown in the snapshot; enforced by the run loop, not here. */
  maxBudgetPerTask: number | null = null;
  /** Where additions go once this LLM was switched away from (handOver). */
  private successor: Metrics | null = null;

  constructor(
    readonly usageId: string,
    readonly model: string,
  ) {}

  /**
   * After a switch to another LLM of the same usage id: `next` goes on from these figures, and what
   * this one still records (a call that was under way) is added there, under this model's name.
   */
  handOver(next: Metrics): void {
    next.restore((this.snapshot().usage_to_metrics as Record<string, unknown>)[this.usageId]);
    this.successor = next;
  }

  add(response: LlmResponse, model = this.model): void {
    if (this.successor) {
      this.successor.add(response, model);
      return;
    }
    this.accumulatedCost += response.cost;
    const t = this.tokens;
    const u = response.usage;
    t.prompt_tokens += u.prompt_tokens;
    t.completion_tokens += u.completion_tokens;
    t.cache_read_tokens += u.cache_read_tokens;
    t.cache_write_tokens += u.cache_write_tokens;
    t.reasoning_tokens += u.reasoning_tokens;
    t.context_window = u.context_window;
    t.per_turn_token = u.prompt_tokens + u.completion_tokens;
    this.lastResponseId = response.id;
    this.latencies.push({
      model,
      latency: Math.max(0, response.latencyMs) / 1000,
      response_id: response.id,
    });
    if (response.cost > 0) this.costs.push({ model, cost: response.cost, timestamp: Date.now() / 1000 });
  }

  /**
   * Continues from a stored snapshot entry (after a restart the cost of a task must not start
   * again from zero, or a budget could be exceeded by restarting).
   */
  restore(entry: unknown): void {
    const e = entry as {
      accumulated_cost?: unknown;
      accumulated_token_usage?: Record<string, unknown>;
      costs?: unknown;
      response_latencies?: unknown;
    } | null;
    if (!e) return;
    // Snapshots stored before these lists existed have none: they start empty then.
    if (Array.isArray(e.costs)) this.costs.push(...(e.costs as Metrics['costs']));
    if (Array.isArray(e.response_latencies))
      this.latencies.push(...(e.response_latencies as Metrics['latencies']));
    if (typeof e.accumulated_cost === 'number') this.accumulatedCost = e.accumulated_cost;
    const usage = e.accumulated_token_usage ?? {};
    for (const key of Object.keys(this.tokens) as (keyof TokenUsage)[])
      if (typeof usage[key] === 'number') this.tokens[key] = usage[key] as number;
    if (typeof usage.response_id === 'string') this.lastResponseId = usage.response_id;
  }

  /** `{usage_to_metrics: {usage_id: {...}}}` as in OpenHands' ConversationState.stats. */
  snapshot(): Record<string, unknown> {
    return {
      usage_to_metrics: {
        [this.usageId]: {
          model_name: this.model,
          accumulated_cost: this.accumulatedCost,
          max_budget_per_task: this.maxBudgetPerTask,
          accumulated_token_usage: { model: this.model, ...this.tokens, response_id: this.lastResponseId },
          costs: this.costs,
          response_latencies: this.latencies,
        },
      },
    };
  }
}
