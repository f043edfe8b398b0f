// Extended thinking for the Claude models OpenHands runs with it (its EXTENDED_THINKING_MODELS): a
// thinking budget, interleaved with tool calls, as OpenHands' LLM asks for unless told otherwise
// (`extended_thinking_budget`, 200k by default, capped below max_tokens). What the Messages API
// refuses with thinking on is never sent: sampling parameters, a budget under its floor, or thinking
// on a turn whose tool calls were made without it (a conversation begun with thinking off or another
// model) — that turn is sent without thinking, as LiteLLM does for OpenHands (`modify_params`).
import type Anthropic from '@anthropic-ai/sdk';
import type { LLMConfig } from './types.js';

/** Substrings of the model names that think with a budget (matched as OpenHands matches them). */
const BUDGETED_THINKING_MODELS = ['claude-sonnet-4-5', 'claude-sonnet-4-6', 'claude-haiku-4-5'];

/** OpenHands' default `extended_thinking_budget`. */
export const DEFAULT_THINKING_BUDGET = 200_000;
/** The smallest budget the Messages API takes. */
export const MIN_THINKING_BUDGET = 1024;
/** Thinking between tool calls of one turn, not only before the first. */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';
/** These models' output limit: the default max_tokens when they think (OpenHands takes LiteLLM's). */
const THINKING_MODELS_MAX_OUTPUT = 64_000;
/** max_tokens when the client sets none, for every other model. */
const DEFAULT_MAX_TOKENS = 8192;

type Turn = Anthropic.Messages.MessageParam;

export const thinksWithBudget = (model: string): boolean => {
  const raw = model.toLowerCase();
  return BUDGETED_THINKING_MODELS.some((m) => raw.includes(m));
};

/** max_tokens for a request: the client's, else the model's default. */
export function maxTokensOf(config: LLMConfig): number {
  if (config.max_output_tokens != null) return config.max_output_tokens;
  return thinksWithBudget(config.model) ? THINKING_MODELS_MAX_OUTPUT : DEFAULT_MAX_TOKENS;
}

/**
 * Whether the last assistant turn called tools without thinking first: with thinking on, the API
 * refuses such a turn ("a final assistant message must start with a thinking block").
 */
function toolTurnWithoutThinking(turns: readonly Turn[]): boolean {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role !== 'assistant') continue;
    if (!Array.isArray(turn.content) || !turn.content.some((b) => b.type === 'tool_use')) return false;
    const first = turn.content[0]!.type;
    return first !== 'thinking' && first !== 'redacted_thinking';
  }
  return false;
}

/** The thinking to request for these turns, or null for none. */
export function thinkingFor(
  config: LLMConfig,
  maxTokens: number,
  turns: readonly Turn[],
): Anthropic.Messages.ThinkingConfigEnabled | null {
  if (!thinksWithBudget(config.model)) return null;
  const asked =
    config.extended_thinking_budget === undefined ? DEFAULT_THINKING_BUDGET : config.extended_thinking_budget;
  if (!asked) return null;
  const budget = Math.min(asked, maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET || toolTurnWithoutThinking(turns)) return null;
  return { type: 'enabled', budget_tokens: budget };
}

/**
 * The beta header thinking between tool calls needs, unless the client's own headers (the LLM's
 * `extra_headers`, sent with every request) already say which betas to use.
 */
export function thinkingHeaders(config: LLMConfig): Record<string, string> | undefined {
  const own = Object.keys(config.extra_headers ?? {}).some((h) => h.toLowerCase() === 'anthropic-beta');
  return own ? undefined : { 'anthropic-beta': INTERLEAVED_THINKING_BETA };
}
