// Usage and cost per usage id, in OpenHands' `stats` snapshot form.
import type { LlmResponse, TokenUsage } from './types.js';

/** USD per million tokens (input, output) for a few well-known models; others cost 0. */
const PRICES: [RegExp, number, number][] = [
  [/gpt-4o-mini/, 0.15, 0.6],
  [/gpt-4o/, 2.5, 10],
  [/gpt-4\.1-mini/, 0.4, 1.6],
  [/gpt-4\.1/, 2, 8],
  [/gpt-5-mini/, 0.25, 2],
  [/gpt-5/, 1.25, 10],
  [/o4-mini|o3-mini/, 1.1, 4.4],
  [/claude-.*haiku/, 0.8, 4],
  [/claude-.*sonnet/, 3, 15],
  [/claude-.*opus/, 15, 75],
];

export function costOf(model: string, promptTokens: number, completionTokens: number): number {
  const price = PRICES.find(([pattern]) => pattern.test(model));
  if (!price) return 0;
  return (promptTokens * price[1] + completionTokens * price[2]) / 1_000_000;
}

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
  readonly latencies: number[] = [];

  constructor(
    readonly usageId: string,
    readonly model: string,
  ) {}

  add(response: LlmResponse): void {
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
    this.latencies.push(response.latencyMs);
  }

  /** `{usage_to_metrics: {usage_id: {...}}}` as in OpenHands' ConversationState.stats. */
  snapshot(): Record<string, unknown> {
    return {
      usage_to_metrics: {
        [this.usageId]: {
          model_name: this.model,
          accumulated_cost: this.accumulatedCost,
          max_budget_per_task: null,
          accumulated_token_usage: { model: this.model, ...this.tokens, response_id: this.lastResponseId },
        },
      },
    };
  }
}
