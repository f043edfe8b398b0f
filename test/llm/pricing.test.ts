import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { costOf, PricingError, parsePriceTable, priceOf } from '../../src/llm/index.js';
import { tempDir } from '../support/server.js';

const usage = (prompt: number, completion: number, cached = 0, written = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  cache_read_tokens: cached,
  cache_write_tokens: written,
});

describe('pricing', () => {
  it('prices common models from the built-in table, with or without the provider prefix', () => {
    expect(costOf(priceOf('openai/gpt-4o'), usage(1_000_000, 0))).toBeCloseTo(2.5);
    expect(costOf(priceOf('gpt-4o-mini'), usage(0, 1_000_000))).toBeCloseTo(0.6);
    expect(costOf(priceOf('anthropic/claude-sonnet-4-5-20250929'), usage(1_000_000, 1_000_000))).toBeCloseTo(
      18,
    );
    expect(priceOf('ollama/some-local-model')).toBeNull();
  });

  it.each([
    ['anthropic/claude-haiku-4-5-20251001', 6],
    ['claude-3-5-haiku-20241022', 4.8],
    ['anthropic/claude-opus-4-1-20250805', 90],
    ['claude-opus-4-20250514', 90],
    ['anthropic/claude-opus-4-5-20251101', 30],
    ['claude-opus-4-6', 30],
  ])("prices %s at Anthropic's list price (1M tokens in, 1M out: $%d)", (model, dollars) => {
    expect(costOf(priceOf(model), usage(1_000_000, 1_000_000))).toBeCloseTo(dollars);
    expect(costOf(null, usage(10, 10))).toBe(0);
  });

  it('bills cached prompt tokens at their own price', () => {
    // 1M prompt tokens, half cached: 0.5 × 2.5 + 0.5 × 1.25
    expect(costOf(priceOf('gpt-4o'), usage(1_000_000, 0, 500_000))).toBeCloseTo(1.875);
  });

  it("bills Anthropic's cache reads at a tenth of the input price and its cache writes at 1.25×", () => {
    // 1M prompt tokens: 600k read from the cache, 300k written to it, 100k neither.
    const sonnet = priceOf('anthropic/claude-sonnet-4-5');
    expect(costOf(sonnet, usage(1_000_000, 0, 600_000, 300_000))).toBeCloseTo(
      0.1 * 3 + 0.6 * 0.3 + 0.3 * 3.75,
    );
    // A price without a write price bills writes as input (OpenAI reports none).
    expect(costOf(priceOf('gpt-4o'), usage(1_000_000, 0, 0, 300_000))).toBeCloseTo(2.5);
    expect(() =>
      parsePriceTable(
        JSON.stringify({
          m: { input_cost_per_token: 1, output_cost_per_token: 1, cache_creation_input_token_cost: -1 },
        }),
      ),
    ).toThrow(PricingError);
  });

  it('overrides: exact names and /regex/ keys beat the built-in table; the LLM’s own prices beat both', () => {
    const table = parsePriceTable(
      JSON.stringify({
        'gpt-4o': { input_cost_per_token: 0.00001, output_cost_per_token: 0 },
        '/local-.*/': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 },
      }),
    );
    expect(costOf(priceOf('openai/gpt-4o', table), usage(1_000_000, 0))).toBeCloseTo(10);
    expect(costOf(priceOf('hosted_vllm/local-qwen', table), usage(1_000_000, 1_000_000))).toBeCloseTo(3);
    const own = priceOf('openai/gpt-4o', table, { input_cost_per_token: 0, output_cost_per_token: 0.001 });
    expect(costOf(own, usage(1000, 1000))).toBeCloseTo(1);
  });

  it('refuses a table entry without per-token prices, and a broken AGENTD_PRICING_FILE at start', () => {
    expect(() => parsePriceTable('{"m": {"input_cost_per_token": 1}}')).toThrow(PricingError);
    const dir = tempDir();
    const file = join(dir, 'prices.json');
    writeFileSync(file, '{"m": {"input_cost_per_token": 0.1, "output_cost_per_token": 0.2}}');
    expect(resolveConfig({ dataDir: dir }, { AGENTD_PRICING_FILE: file }).prices).toEqual({
      m: { input_cost_per_token: 0.1, output_cost_per_token: 0.2 },
    });
    writeFileSync(file, 'not json');
    expect(() => resolveConfig({ dataDir: dir }, { AGENTD_PRICING_FILE: file })).toThrow(ConfigError);
  });
});
