// createLLM: routes a LiteLLM-style model string to an adapter and wraps it with retries, timing,
// cost and metrics.
//   openai/<m>, bare names         → OpenAI chat completions (Responses API for reasoning models)
//   anthropic/<m>, bare claude-*   → Anthropic Messages
//   litellm_proxy/<m> and other provider prefixes (ollama/, hosted_vllm/, openrouter/, …) →
//                                    OpenAI-compatible chat completions at `base_url`
//   openhands/<m>, openrouter/<m>, deepseek/<m>, gemini/<m>, … → the same at the provider's known
//                                    endpoint (OpenHands' LLM proxy, …), unless `base_url` names another
//   azure/<deployment>             → Azure OpenAI's chat completions for that deployment at `base_url`
import { AnthropicAdapter } from './anthropic.js';
import { seesImages, usesResponsesApi } from './capabilities.js';
import { hasDefaultEndpoint, llmConfigProblems, problemError, splitModel } from './config-check.js';
import { classify, LLMBadRequestError, LLMError } from './errors.js';
import { Metrics } from './metrics.js';
import { OpenAIChatAdapter } from './openai-chat.js';
import { OpenAIResponsesAdapter } from './openai-responses.js';
import { costOf, type PriceTable, priceOf } from './pricing.js';
import type { Adapter, CallOptions, LLM, LLMConfig, LlmRequest, LlmResponse, Logger } from './types.js';

export interface Route {
  provider: 'openai' | 'anthropic' | 'azure' | 'compatible';
  api: 'chat' | 'responses' | 'messages';
  model: string;
}

export function route(config: LLMConfig): Route {
  const { prefix, name: model } = splitModel(config.model);
  if (prefix === 'anthropic' || (prefix === '' && model.startsWith('claude')))
    return { provider: 'anthropic', api: 'messages', model };
  if (prefix === '' || prefix === 'openai') {
    return { provider: 'openai', api: usesResponsesApi(config, true) ? 'responses' : 'chat', model };
  }
  // A provider with a known endpoint (OpenHands' proxy, OpenRouter, DeepSeek, …) needs no base URL.
  if (!hasDefaultEndpoint(prefix) && !config.base_url) {
    throw new LLMBadRequestError(
      `Model ${config.model} needs a base URL (llm_base_url) for its ${prefix} endpoint`,
    );
  }
  // Azure's Responses API has no deployment in its path, and OpenHands' SDK takes Azure to chat too.
  if (prefix === 'azure') return { provider: 'azure', api: 'chat', model };
  return { provider: 'compatible', api: usesResponsesApi(config, false) ? 'responses' : 'chat', model };
}

/**
 * The request without its images, each group of them replaced by a line that says so: the model can
 * then tell the user it did not see them (OpenHands leaves them out silently).
 */
function withoutImages(request: LlmRequest): LlmRequest {
  const messages = request.messages.map((m) => {
    if (!m.content?.some((c) => 'image_urls' in c)) return m;
    const content = m.content.map((c) =>
      'image_urls' in c
        ? {
            type: 'text' as const,
            text: `[${c.image_urls.length} image(s) left out: this model is set not to see images]`,
            cache_prompt: false,
          }
        : c,
    );
    return { ...m, content };
  });
  return { ...request, messages };
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

/**
 * agentd's retry defaults: 3 retries after 2, 4 and 8 s (14 s of waiting in all), so a failure that
 * retrying cannot fix is an event within seconds, not minutes. OpenHands' defaults (5 retries, 8–64 s)
 * kept a conversation silent for three minutes; its clients send their own values, which win.
 */
export const RETRY_DEFAULTS = {
  num_retries: 3,
  retry_min_wait: 2,
  retry_max_wait: 10,
  retry_multiplier: 2,
} as const;

/** Exponential backoff in seconds, clamped to [min, max] (tenacity's wait_exponential, as OpenHands). */
export function backoffSeconds(attempt: number, config: LLMConfig): number {
  const min = config.retry_min_wait ?? RETRY_DEFAULTS.retry_min_wait;
  const max = config.retry_max_wait ?? RETRY_DEFAULTS.retry_max_wait;
  const multiplier = config.retry_multiplier ?? RETRY_DEFAULTS.retry_multiplier;
  return Math.min(max, Math.max(min, multiplier * 2 ** (attempt - 1)));
}

export interface CreateLLMOptions {
  /** The server's price overrides (AGENTD_PRICING_FILE); the built-in table fills the rest. */
  prices?: PriceTable;
  /** Gets a warn line per retry and an error line per failed call (bind the conversation id to it). */
  logger?: Logger;
}

const SILENT: Logger = { warn() {}, error() {} };

/**
 * An LLM over the configured provider. A configuration that cannot work (no base URL where one is
 * needed, a malformed URL, a key that cannot be sent) does not throw here: its first call fails at
 * once, without a request or a retry, so the conversation shows the error as an event.
 */
export function createLLM(config: LLMConfig, options: CreateLLMOptions = {}): LLM {
  const problem = llmConfigProblems(config)[0];
  const adapter = problem ? null : adapterFor(config, route(config));
  const metrics = new Metrics(config.usage_id ?? 'default', config.model);
  const price = priceOf(config.model, options.prices, config);
  const retries = config.num_retries ?? RETRY_DEFAULTS.num_retries;
  const logger = options.logger ?? SILENT;
  const fields = (failure: Error, attempt: number) => ({
    usage_id: metrics.usageId,
    model: config.model,
    attempt,
    error: failure.name,
    status: failure instanceof LLMError ? (failure.status ?? null) : null,
    detail: failure.message,
  });
  return {
    config,
    metrics,
    async complete(
      request: LlmRequest,
      signal?: AbortSignal,
      onDelta?: CallOptions['onDelta'],
    ): Promise<LlmResponse> {
      if (!adapter) {
        const failure = problemError(problem!);
        logger.error(fields(failure, 0), 'LLM call not made: the LLM configuration cannot work');
        throw failure;
      }
      const sent = seesImages(config) ? request : withoutImages(request);
      for (let attempt = 0; ; attempt++) {
        const started = performance.now();
        const call = requestSignal(signal);
        try {
          // Deltas only when the config asks to stream: a caller's callback never turns streaming on.
          const result = await adapter.complete(sent, {
            ...(call.signal ? { signal: call.signal } : {}),
            ...(config.stream && onDelta ? { onDelta } : {}),
          });
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
          const retryable = failure instanceof LLMError && failure.retryable;
          if (!retryable || attempt >= retries) {
            logger.error(
              { ...fields(failure, attempt + 1), retryable, retries },
              retryable ? 'LLM call failed; no retries left' : 'LLM call failed; not retried',
            );
            throw failure;
          }
          const wait = backoffSeconds(attempt + 1, config);
          logger.warn(
            { ...fields(failure, attempt + 1), retries, wait_s: wait },
            'LLM call failed; retrying',
          );
          await sleep(wait * 1000, signal);
        } finally {
          call.release();
        }
      }
    },
  };
}
