// What a request to Claude carries for its thinking, once capabilities.ts (thinkingKind) has said which
// of Anthropic's two kinds the model thinks in:
// - budgeted (Sonnet 4.5, Haiku 4.5; OpenHands' EXTENDED_THINKING_MODELS): `extended_thinking_budget`
//   tokens (200k by default, capped below max_tokens), interleaved with tool calls (a beta header);
// - adaptive (Opus 4.6 and later, Sonnet 4.6, Mythos, Fable): the model decides how much to think,
//   steered by `reasoning_effort` (OpenHands sends `high` by default); budgets are deprecated there,
//   and refused from Opus 4.7 on.
// What the Messages API refuses with thinking on is never sent: sampling parameters, a budget under
// its floor, or budgeted thinking on a turn whose tool calls were made without it (a conversation
// begun with thinking off or on another model) — that turn is sent without thinking, as LiteLLM does
// for OpenHands (`modify_params`). Adaptive thinking may skip a turn, so such turns are valid there.
import type Anthropic from '@anthropic-ai/sdk';
import { thinkingKind } from './capabilities.js';
import type { LLMConfig } from './types.js';

/** OpenHands' default `extended_thinking_budget`. */
const DEFAULT_THINKING_BUDGET = 200_000;
/** The smallest budget the Messages API takes. */
const MIN_THINKING_BUDGET = 1024;
/** Thinking between tool calls of one turn, not only before the first. */
const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';
/**
 * The default max_tokens of a model that thinks (its thinking counts toward it; OpenHands' SDK sends
 * the model's whole output limit, 64k and up): room for long thinking and the answer after it, half of
 * Sonnet 4.5's and Haiku 4.5's limit. A smaller figure leaves the answer cut short; a larger one asks
 * more of an account's output-tokens-per-minute limit than one turn needs.
 */
const THINKING_MODELS_MAX_OUTPUT = 32_000;
/** max_tokens when the client sets none, for every other model. */
const DEFAULT_MAX_TOKENS = 8192;
/** The efforts the Messages API takes, by OpenHands' `reasoning_effort` names. */
const EFFORTS: Record<string, Effort> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
};

type Turn = Anthropic.Messages.MessageParam;
type Effort = NonNullable<Anthropic.Messages.OutputConfig['effort']>;

/** What a request to Claude carries for its thinking. */
export interface ThinkingRequest {
  max_tokens: number;
  /** The thinking members of the request body (none: the model does not think on this turn). */
  params?: {
    thinking: Anthropic.Messages.ThinkingConfigEnabled | Anthropic.Messages.ThinkingConfigAdaptive;
    output_config?: { effort: Effort };
  };
  /** Headers of this request (the interleaved-thinking beta a budget needs). */
  headers?: Record<string, string>;
}

/** max_tokens and, when the model thinks on these turns, how. */
export function thinkingRequest(config: LLMConfig, turns: readonly Turn[]): ThinkingRequest {
  const kind = thinkingKind(config);
  const max_tokens = config.max_output_tokens ?? (kind ? THINKING_MODELS_MAX_OUTPUT : DEFAULT_MAX_TOKENS);
  if (kind === 'adaptive') return { max_tokens, ...adaptive(config.reasoning_effort) };
  if (kind === null) return { max_tokens };
  const asked =
    config.extended_thinking_budget === undefined ? DEFAULT_THINKING_BUDGET : config.extended_thinking_budget;
  const budget = Math.min(asked ?? 0, max_tokens - 1);
  if (budget < MIN_THINKING_BUDGET || toolTurnWithoutThinking(turns)) return { max_tokens };
  return {
    max_tokens,
    params: { thinking: { type: 'enabled', budget_tokens: budget } },
    headers: interleavedHeader(config),
  };
}

/** `reasoning_effort: none` asks for no thinking; an effort the API does not name, for its default. */
function adaptive(reasoningEffort: string | null | undefined): Pick<ThinkingRequest, 'params'> {
  if (reasoningEffort === 'none') return {};
  const effort = reasoningEffort ? EFFORTS[reasoningEffort.toLowerCase()] : undefined;
  return { params: { thinking: { type: 'adaptive' }, ...(effort ? { output_config: { effort } } : {}) } };
}

/**
 * Whether the last assistant turn called tools without thinking first: with a budget, the API refuses
 * such a turn ("a final assistant message must start with a thinking block").
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

/**
 * The beta header thinking between tool calls needs, unless the client's own headers (the LLM's
 * `extra_headers`, sent with every request) already say which betas to use.
 */
function interleavedHeader(config: LLMConfig): Record<string, string> | undefined {
  const own = Object.keys(config.extra_headers ?? {}).some((h) => h.toLowerCase() === 'anthropic-beta');
  return own ? undefined : { 'anthropic-beta': INTERLEAVED_THINKING_BETA };
}
