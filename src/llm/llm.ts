// createLLM: routes a LiteLLM-style model string to an adapter and wraps it with retries, timing,
// cost and metrics.
//   openai/<m>, bare names         → OpenAI chat completions (Responses API for reasoning models)
//   anthropic/<m>, bare claude-*   → Anthropic Messages
//   litellm_proxy/<m> and other provider prefixes (ollama/, hosted_vllm/, openrouter/, …) →
//                                    OpenAI-compatible chat completions at `base_url`
import { AnthropicAdapter } from './anthropic.js';
import { classify, LLMBadRequestError, LLMError } from './errors.js';
import { Metrics } from './metrics.js';
import { OpenAIChatAdapter } from './openai-chat.js';
import { OpenAIResponsesAdapter } from './openai-responses.js';
import { costOf, type PriceTable, priceOf } from './pricing.js';
import type { Adapter, LLM, LLMConfig, LlmRequest, LlmResponse } from './types.js';

/** Reasoning models that OpenAI serves best through the Responses API. */
const RESPONSES_MODELS = /^(gpt-5|o[134](-|$)|codex)/;

export interface Route {
  provider: 'openai' | 'anthropic' | 'compatible';
  api: 'chat' | 'responses' | 'messages';
  model: string;
}

export function route(config: LLMConfig): Route {
  const slash = config.model.indexOf('/');
  const prefix = slash === -1 ? '' : config.model.slice(0, slash);
  const model = slash === -1 ? config.model : config.model.slice(slash + 1);
  if (prefix === 'anthropic' || (prefix === '' && model.startsWith('claude')))
    return { provider: 'anthropic', api: 'messages', model };
  if (prefix === '' || prefix === 'openai') {
    const responses = config.use_responses_api ?? RESPONSES_MODELS.test(model);
    return { provider: 'openai', api: responses ? 'responses' : 'chat', model };
  }
  if (!config.base_url) {
    throw new LLMBadRequestError(
      `Model ${config.model} needs a base URL (llm_base_url) for its ${prefix} endpoint`,
    );
  }
  return { provider: 'compatible', api: config.use_responses_api ? 'responses' : 'chat', model };
}

function adapterFor(config: LLMConfig, r: Route): Adapter {
  if (r.api === 'messages') return new AnthropicAdapter(config, r.model);
  if (r.api === 'responses') return new OpenAIResponsesAdapter(config, r.model);
  return new OpenAIChatAdapter(config, r.model);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A signal for one request that follows `outer`. The SDKs add an abort listener per request and keep
 * it; on the run's long-lived signal those would pile up (one per LLM call), so each call gets its own
 * signal and the link to the run's is removed when the call ends.
 */
function requestSignal(outer: AbortSignal | undefined): { signal?: AbortSignal; release(): void } {
  if (!outer) return { release() {} };
  const controller = new AbortController();
  const forward = () => controller.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => outer.removeEventListener('abort', forward) };
}

/** Exponential backoff in seconds, clamped to [min, max] (tenacity's wait_exponential, as OpenHands). */
export function backoffSeconds(attempt: number, config: LLMConfig): number {
  const min = config.retry_min_wait ?? 8;
  const max = config.retry_max_wait ?? 64;
  const multiplier = config.retry_multiplier ?? 8;
  return Math.min(max, Math.max(min, multiplier * 2 ** (attempt - 1)));
}

export interface CreateLLMOptions {
  /** The server's price overrides (AGENTD_PRICING_FILE); the built-in table fills the rest. */
  prices?: PriceTable;
}

export function createLLM(config: LLMConfig, options: CreateLLMOptions = {}): LLM {
  const r = route(config);
  const adapter = adapterFor(config, r);
  const metrics = new Metrics(config.usage_id ?? 'default', config.model);
  const price = priceOf(config.model, options.prices, config);
  const retries = config.num_retries ?? 5;
  return {
    config,
    metrics,
    async complete(request: LlmRequest, signal?: AbortSignal): Promise<LlmResponse> {
      for (let attempt = 0; ; attempt++) {
        const started = performance.now();
        const call = requestSignal(signal);
        try {
          const result = await adapter.complete(request, call.signal);
          const response: LlmResponse = {
            ...result,
            cost: costOf(price, result.usage),
            latencyMs: performance.now() - started,
          };
          metrics.add(response);
          return response;
        } catch (error) {
          if (signal?.aborted) throw signal.reason ?? error;
          const failure = classify(error, config.api_key);
          if (!(failure instanceof LLMError) || !failure.retryable || attempt >= retries) throw failure;
          await sleep(backoffSeconds(attempt + 1, config) * 1000, signal);
        } finally {
          call.release();
        }
      }
    },
  };
}
