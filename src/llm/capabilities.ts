// What a model takes, decided per request: from the model's name, unless the LLM's
// `capability_overrides` (OpenHands' SDK: for proxy aliases and models newer than this table) say
// otherwise, and `api_mode` for the API. The adapters ask here; anthropic-thinking.ts shapes the
// thinking a request asks for once thinkingKind has said which.
import { splitModel } from './config-check.js';
import type { LLMConfig } from './types.js';

type Overrides = NonNullable<LLMConfig['capability_overrides']>;
type Flag =
  | 'supports_reasoning_effort'
  | 'supports_sampling_params'
  | 'supports_prompt_cache'
  | 'supports_responses_api'
  | 'supports_vision';

/** An override of a yes/no capability, or undefined where the LLM sets none. */
function flag(config: Pick<LLMConfig, 'capability_overrides'>, key: Flag): boolean | undefined {
  const value = (config.capability_overrides as Overrides | null | undefined)?.[key];
  return typeof value === 'boolean' ? value : undefined;
}

const nameOf = (config: Pick<LLMConfig, 'model'>) => splitModel(config.model.trim()).name;

/**
 * OpenAI's models that refuse a reasoning effort (a 400, "Unsupported parameter: 'reasoning_effort' is
 * not supported with this model", behind a proxy too): GPT-3.5 and GPT-4 (4o, 4.1, …), the GPT-5 chat
 * models. OpenHands' LLM sends `reasoning_effort: "high"` unless told otherwise, whatever the model,
 * and sends it only to models LiteLLM knows to reason; agentd leaves it out for these and sends it to
 * every other model as asked (a server that does not know it ignores it or says so).
 */
const REFUSE_REASONING_EFFORT = /^(gpt-3\.5|gpt-4|chatgpt-|gpt-5(\.\d+)?-chat)/i;

/** Whether a request may carry a reasoning effort. */
export function takesReasoningEffort(config: Pick<LLMConfig, 'model' | 'capability_overrides'>): boolean {
  return flag(config, 'supports_reasoning_effort') ?? !REFUSE_REASONING_EFFORT.test(nameOf(config));
}

/** Reasoning models that OpenAI serves best through the Responses API. */
const RESPONSES_MODELS = /^(gpt-5|o[134](-|$)|codex)/;

/**
 * The sampling parameters the LLM sets, as a request carries them: none to OpenAI's reasoning models,
 * which refuse any but their defaults (a 400; OpenHands drops them for every model that takes a
 * reasoning effort), nor where the LLM's override says so; `top_k` only to an API that takes it
 * (Anthropic's: OpenAI's refuse a member they do not know).
 */
export function samplingParams(
  config: Pick<LLMConfig, 'model' | 'capability_overrides' | 'temperature' | 'top_p' | 'top_k'>,
  takesTopK: boolean,
): { temperature?: number; top_p?: number; top_k?: number } {
  const name = nameOf(config);
  const openaiReasoning = RESPONSES_MODELS.test(name) && !REFUSE_REASONING_EFFORT.test(name);
  if (!(flag(config, 'supports_sampling_params') ?? !openaiReasoning)) return {};
  return {
    ...(config.temperature != null ? { temperature: config.temperature } : {}),
    ...(config.top_p != null ? { top_p: config.top_p } : {}),
    ...(takesTopK && config.top_k != null ? { top_k: config.top_k } : {}),
  };
}

/** Whether the model is Claude by its name (through a proxy too: `litellm_proxy/claude-…`). */
export const isClaude = (config: Pick<LLMConfig, 'model'>): boolean => /claude/i.test(nameOf(config));

/**
 * Whether the prompt gets Anthropic's cache marks: Claude (Anthropic's API, or a Claude model through
 * a proxy), or any model the LLM says caches that way (a proxy alias of Claude); never with
 * `caching_prompt: false`.
 */
export function marksPromptCache(
  config: Pick<LLMConfig, 'model' | 'caching_prompt' | 'capability_overrides'>,
  anthropicApi: boolean,
): boolean {
  if (config.caching_prompt === false) return false;
  return flag(config, 'supports_prompt_cache') ?? (anthropicApi || isClaude(config));
}

/**
 * Whether images go to the model: not when the LLM says `disable_vision` (OpenHands' LLM) or
 * `supports_vision: false` (a text-only model, which would refuse the request).
 */
export const seesImages = (config: Pick<LLMConfig, 'disable_vision' | 'capability_overrides'>): boolean =>
  config.disable_vision !== true && (flag(config, 'supports_vision') ?? true);

/**
 * Whether the Responses API serves the request: `api_mode` (OpenHands' SDK) when it names one, else
 * the older `use_responses_api`, else the SDK's override, else OpenAI's reasoning models (`openai`:
 * an OpenAI model; any other server only when told).
 */
export function usesResponsesApi(
  config: Pick<LLMConfig, 'model' | 'api_mode' | 'use_responses_api' | 'capability_overrides'>,
  openai: boolean,
): boolean {
  if (config.api_mode === 'chat') return false;
  if (config.api_mode === 'responses') return true;
  return (
    config.use_responses_api ??
    flag(config, 'supports_responses_api') ??
    (openai && RESPONSES_MODELS.test(nameOf(config)))
  );
}

/** Substrings of the Claude models that think with a budget (matched as OpenHands matches them). */
const BUDGETED_THINKING_MODELS = ['claude-sonnet-4-5', 'claude-haiku-4-5'];
/** Substrings of the Claude models that think adaptively (budgets deprecated, refused from Opus 4.7). */
const ADAPTIVE_THINKING_MODELS = [
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-7',
  'claude-opus-4-8',
  'claude-mythos',
  'claude-fable',
];

/**
 * How a Claude model thinks: with a budget, adaptively, or not at all (null). The LLM's `thinking_mode`
 * override (`manual`, `adaptive`, `none`/`unknown`) wins over the tables.
 */
export function thinkingKind(
  config: Pick<LLMConfig, 'model' | 'capability_overrides'>,
): 'budgeted' | 'adaptive' | null {
  const mode = (config.capability_overrides as Overrides | null | undefined)?.thinking_mode;
  if (mode === 'manual') return 'budgeted';
  if (mode === 'adaptive') return 'adaptive';
  if (mode === 'none' || mode === 'unknown') return null;
  const raw = config.model.toLowerCase();
  if (BUDGETED_THINKING_MODELS.some((m) => raw.includes(m))) return 'budgeted';
  if (ADAPTIVE_THINKING_MODELS.some((m) => raw.includes(m))) return 'adaptive';
  return null;
}
