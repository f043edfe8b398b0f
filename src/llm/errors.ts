// Typed LLM failures. The class name is the error code OpenHands reports in ConversationErrorEvent
// (`code`), so it is part of the wire contract. Messages never contain the API key.

export class LLMError extends Error {
  /** Whether trying again may help (rate limits, outages, timeouts). */
  readonly retryable: boolean = false;
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class LLMAuthenticationError extends LLMError {}
export class LLMBadRequestError extends LLMError {}
export class LLMContextWindowExceededError extends LLMError {}
export class LLMNoResponseError extends LLMError {}
export class LLMRateLimitError extends LLMError {
  override readonly retryable = true;
}
export class LLMServiceUnavailableError extends LLMError {
  override readonly retryable = true;
}
export class LLMTimeoutError extends LLMError {
  override readonly retryable = true;
}

const CONTEXT_HINTS = /context.?length|context.?window|maximum context|too many tokens|prompt is too long/i;

/** Maps an SDK error (OpenAI's or Anthropic's, both carry `status`) to an LLMError. */
export function classify(error: unknown, apiKey?: string | null): LLMError | Error {
  if (error instanceof LLMError) return error;
  const e = error as { name?: string; status?: number; message?: string; error?: { message?: string } };
  if (e?.name === 'AbortError' || e?.name === 'APIUserAbortError') return error as Error;
  let message = e?.error?.message ?? e?.message ?? String(error);
  if (apiKey) message = message.split(apiKey).join('***');
  const status = e?.status;
  if (e?.name === 'APIConnectionTimeoutError')
    return new LLMTimeoutError(`LLM request timed out: ${message}`);
  if (status === undefined) return new LLMServiceUnavailableError(`LLM connection failed: ${message}`);
  if (status === 401 || status === 403)
    return new LLMAuthenticationError(`LLM authentication failed (${status}): ${message}`, status);
  if (status === 429) return new LLMRateLimitError(`LLM rate limit (429): ${message}`, status);
  if (status === 408) return new LLMTimeoutError(`LLM request timed out (408): ${message}`, status);
  if (status >= 500)
    return new LLMServiceUnavailableError(`LLM service error (${status}): ${message}`, status);
  if (CONTEXT_HINTS.test(message)) return new LLMContextWindowExceededError(message, status);
  return new LLMBadRequestError(`LLM rejected the request (${status}): ${message}`, status);
}
