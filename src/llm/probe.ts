// A pre-flight check of an LLM configuration (OpenHands' POST /api/profiles/{name}/validate): one
// tiny completion, so a wrong model name, provider prefix, base URL or key shows before the
// configuration is saved or used. Passing failures (rate limits, timeouts) do not count against it:
// they say nothing about the configuration.
import { LLMError, LLMRateLimitError, LLMTimeoutError } from './errors.js';
import { type CreateLLMOptions, createLLM } from './llm.js';
import type { LLMConfig } from './types.js';

export interface LLMProbe {
  valid: boolean;
  /** Why not: the error's class (LLMAuthenticationError, …) and its message, which never holds the key. */
  error: { type: string; message: string } | null;
}

/** Seconds the probe waits for an answer at most (the configuration's own timeout when shorter). */
export const PROBE_TIMEOUT_S = 30;

export async function probeLLM(config: LLMConfig, options: CreateLLMOptions = {}): Promise<LLMProbe> {
  const llm = createLLM(
    {
      ...config,
      num_retries: 0,
      // 16: the least OpenAI's Responses API takes.
      max_output_tokens: 16,
      timeout: Math.min(config.timeout ?? PROBE_TIMEOUT_S, PROBE_TIMEOUT_S),
      stream: false,
    },
    options,
  );
  try {
    await llm.complete({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'ping' }] }],
      tools: [],
    });
    return { valid: true, error: null };
  } catch (error) {
    if (error instanceof LLMRateLimitError || error instanceof LLMTimeoutError)
      return { valid: true, error: null };
    const failure =
      error instanceof LLMError ? error : new LLMError(String((error as Error)?.message ?? error));
    return { valid: false, error: { type: failure.name, message: failure.message } };
  }
}
