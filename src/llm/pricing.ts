// What a completion costs. Prices are per token, in USD, under LiteLLM's names
// (`input_cost_per_token`, `output_cost_per_token`, `cache_read_input_token_cost`,
// `cache_creation_input_token_cost`), so a table taken
// from LiteLLM's model list can be used as an override file unchanged.
// Order of precedence: the LLM's own `input_cost_per_token` / `output_cost_per_token` (OpenHands'
// LLM fields), then the server's override table (AGENTD_PRICING_FILE), then the built-in table.
// A model found nowhere costs 0: budgets then only stop a run whose model has a price.
import { readFileSync } from 'node:fs';
import type { TokenUsage } from './types.js';

export interface ModelPrice {
  input_cost_per_token: number;
  output_cost_per_token: number;
  /** Cached prompt tokens, when the provider bills them differently. */
  cache_read_input_token_cost?: number;
  /** Prompt tokens written to the cache, when the provider bills them differently (Anthropic: 1.25×). */
  cache_creation_input_token_cost?: number;
}

/** Model name (with or without its provider prefix) or `/regex/` → price. */
export type PriceTable = Record<string, ModelPrice>;

const perMillion = (input: number, output: number, cacheRead?: number, cacheWrite?: number): ModelPrice => ({
  input_cost_per_token: input / 1e6,
  output_cost_per_token: output / 1e6,
  ...(cacheRead !== undefined ? { cache_read_input_token_cost: cacheRead / 1e6 } : {}),
  ...(cacheWrite !== undefined ? { cache_creation_input_token_cost: cacheWrite / 1e6 } : {}),
});

/** A few well-known models (USD per million tokens, list prices); more specific patterns first. */
export const BUILT_IN_PRICES: PriceTable = {
  '/gpt-4o-mini.*/': perMillion(0.15, 0.6, 0.075),
  '/gpt-4o.*/': perMillion(2.5, 10, 1.25),
  '/gpt-4\\.1-nano.*/': perMillion(0.1, 0.4, 0.025),
  '/gpt-4\\.1-mini.*/': perMillion(0.4, 1.6, 0.1),
  '/gpt-4\\.1.*/': perMillion(2, 8, 0.5),
  '/gpt-5-nano.*/': perMillion(0.05, 0.4, 0.005),
  '/gpt-5-mini.*/': perMillion(0.25, 2, 0.025),
  '/gpt-5.*/': perMillion(1.25, 10, 0.125),
  '/o4-mini.*|o3-mini.*/': perMillion(1.1, 4.4, 0.275),
  '/o3.*/': perMillion(2, 8, 0.5),
  // Anthropic: cache reads at a tenth of the input price, writes (five-minute cache) at 1.25×.
  // Haiku 4.5 costs more than 3.5; Opus 4.5 and 4.6 a third of Opus 4 and 4.1, the price of any Opus
  // not named here (the highest: a budget then stops too early rather than too late).
  '/claude-.*haiku-4.*/': perMillion(1, 5, 0.1, 1.25),
  '/claude-.*haiku.*/': perMillion(0.8, 4, 0.08, 1),
  '/claude-.*sonnet.*/': perMillion(3, 15, 0.3, 3.75),
  '/claude-.*opus-4-[56].*/': perMillion(5, 25, 0.5, 6.25),
  '/claude-.*opus.*/': perMillion(15, 75, 1.5, 18.75),
  '/gemini-2\\.5-pro.*/': perMillion(1.25, 10, 0.31),
  '/gemini-2\\.5-flash.*/': perMillion(0.3, 2.5, 0.075),
  '/deepseek-chat.*/': perMillion(0.27, 1.1, 0.07),
};

export class PricingError extends Error {
  override name = 'PricingError';
}

function isPrice(value: unknown): value is ModelPrice {
  const v = value as Record<string, unknown>;
  const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  return (
    typeof v === 'object' &&
    v !== null &&
    ok(v.input_cost_per_token) &&
    ok(v.output_cost_per_token) &&
    (v.cache_read_input_token_cost === undefined || ok(v.cache_read_input_token_cost)) &&
    (v.cache_creation_input_token_cost === undefined || ok(v.cache_creation_input_token_cost))
  );
}

/** Reads an override table; entries without both per-token prices are refused by name. */
export function parsePriceTable(text: string, source = 'pricing table'): PriceTable {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new PricingError(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new PricingError(`${source} must be an object of model → price`);
  const table: PriceTable = {};
  for (const [model, price] of Object.entries(data)) {
    if (!isPrice(price))
      throw new PricingError(
        `${source}: ${model} needs non-negative input_cost_per_token and output_cost_per_token`,
      );
    table[model] = price;
  }
  return table;
}

export function loadPriceTable(path: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PricingError(`Cannot read pricing file ${path}: ${(error as Error).message}`);
  }
  return parsePriceTable(text, path);
}

/** `/regex/` keys compiled once (null: not a valid pattern); keys come from the price tables only. */
const patterns = new Map<string, RegExp | null>();

function patternOf(key: string): RegExp | null {
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(`^(?:${key.slice(1, -1)})$`);
    } catch {
      pattern = null;
    }
    patterns.set(key, pattern);
  }
  return pattern;
}

function lookup(table: PriceTable, names: string[]): ModelPrice | null {
  for (const name of names) if (Object.hasOwn(table, name)) return table[name]!;
  for (const [key, price] of Object.entries(table)) {
    if (!(key.length > 2 && key.startsWith('/') && key.endsWith('/'))) continue;
    const pattern = patternOf(key);
    if (pattern && names.some((n) => pattern.test(n))) return price;
  }
  return null;
}

/** The price of a model: `model` as configured (`openai/gpt-4o`) and its bare name are both tried. */
export function priceOf(
  model: string,
  overrides: PriceTable = {},
  own?: { input_cost_per_token?: number | null; output_cost_per_token?: number | null },
): ModelPrice | null {
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  const names = [...new Set([model, bare])];
  const found = lookup(overrides, names) ?? lookup(BUILT_IN_PRICES, names);
  if (own?.input_cost_per_token == null && own?.output_cost_per_token == null) return found;
  return {
    input_cost_per_token: own.input_cost_per_token ?? found?.input_cost_per_token ?? 0,
    output_cost_per_token: own.output_cost_per_token ?? found?.output_cost_per_token ?? 0,
  };
}

/**
 * USD for one completion's usage: prompt tokens read from or written to the cache at their own
 * prices when they are known (else at the input price); `prompt_tokens` counts both.
 */
export function costOf(
  price: ModelPrice | null,
  usage: Pick<TokenUsage, 'prompt_tokens' | 'completion_tokens' | 'cache_read_tokens' | 'cache_write_tokens'>,
): number {
  if (!price) return 0;
  const read =
    price.cache_read_input_token_cost !== undefined
      ? Math.min(usage.cache_read_tokens, usage.prompt_tokens)
      : 0;
  const written =
    price.cache_creation_input_token_cost !== undefined
      ? Math.min(usage.cache_write_tokens, usage.prompt_tokens - read)
      : 0;
  return (
    (usage.prompt_tokens - read - written) * price.input_cost_per_token +
    read * (price.cache_read_input_token_cost ?? 0) +
    written * (price.cache_creation_input_token_cost ?? 0) +
    usage.completion_tokens * price.output_cost_per_token
  );
}
