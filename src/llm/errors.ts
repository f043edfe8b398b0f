// Typed LLM failures. The class name is the error code OpenHands reports in ConversationErrorEvent
// (`code`), so it is part of the wire contract. Messages never contain the API key.
//
// Whether an error is worth retrying is decided here, once: only what can pass by itself (rate
// limits, 408, 5xx, a timeout, a dropped connection). A rejected key, a bad request, a model that does
// not exist, a key that cannot even be sent, a host that does not resolve or refuses connections:
// retrying only delays the error the user has to see.

export class LLMError extends Error {
  /** Whether this kind of failure is retried unless the instance says otherwise. */
  static readonly retryableByDefault: boolean = false;
  /** Whether trying again may help (rate limits, outages, timeouts, dropped connections). */
  readonly retryable: boolean;
  constructor(
    message: string,
    readonly status?: number,
    options: { retryable?: boolean } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.retryable = options.retryable ?? (new.target as typeof LLMError).retryableByDefault;
  }
}
export class LLMAuthenticationError extends LLMError {}
export class LLMBadRequestError extends LLMError {}
export class LLMContextWindowExceededError extends LLMError {}
export class LLMNoResponseError extends LLMError {}
export class LLMRateLimitError extends LLMError {
  static override readonly retryableByDefault: boolean = true;
}
export class LLMServiceUnavailableError extends LLMError {
  static override readonly retryableByDefault: boolean = true;
}
export class LLMTimeoutError extends LLMError {
  static override readonly retryableByDefault: boolean = true;
}

const CONTEXT_HINTS = /context.?length|context.?window|maximum context|too many tokens|prompt is too long/i;

/** Connection failures that end the same way however often they are tried. */
const PERMANENT_CONNECTION_CODES: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  ECONNREFUSED: 'the connection was refused (nothing listens there)',
  ERR_INVALID_URL: 'the base URL is not a valid URL',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: "its TLS certificate does not match the host's name",
};

/** undici's refusal of a header value it cannot send (a key with `…` or a line break in it). */
const UNSENDABLE_HEADER = /ByteString|invalid header value/i;

interface ErrorLike {
  name?: string;
  code?: string;
  status?: number;
  message?: string;
  error?: { message?: string };
  cause?: unknown;
  constructor?: { name?: string };
}

/**
 * What the cause chain tells (the SDKs wrap undici's TypeError, which wraps the socket's): its first
 * `code`, and whether fetch refused a port on its blocklist (6000, 9, 25, …) with Error('bad port').
 */
function causeOf(error: ErrorLike | undefined): { code?: string; blockedPort: boolean } {
  let code: string | undefined;
  let blockedPort = false;
  for (let e = error, depth = 0; e && depth < 5; e = e.cause as ErrorLike | undefined, depth++) {
    if (code === undefined && typeof e.code === 'string') code = e.code;
    if (e.message === 'bad port') blockedPort = true;
  }
  return { code, blockedPort };
}

function redact(message: string, apiKey?: string | null): string {
  return apiKey ? message.split(apiKey).join('***') : message;
}

/** Maps an SDK error (OpenAI's or Anthropic's, both carry `status`) to an LLMError. */
export function classify(error: unknown, apiKey?: string | null): LLMError | Error {
  if (error instanceof LLMError) return error;
  const e = error as ErrorLike | undefined;
  // OpenAI's error classes keep `name` "Error"; their constructor's name tells them apart.
  const kind = e?.constructor?.name && e.constructor.name !== 'Error' ? e.constructor.name : e?.name;
  if (e?.name === 'AbortError' || kind === 'APIUserAbortError') return error as Error;
  const message = redact(e?.error?.message ?? e?.message ?? String(error), apiKey);
  const status = e?.status;
  if (kind === 'APIConnectionTimeoutError') return new LLMTimeoutError(`LLM request timed out: ${message}`);
  if (status === undefined) return connectionFailure(e, message);
  if (status === 401 || status === 403)
    return new LLMAuthenticationError(`LLM authentication failed (${status}): ${message}`, status);
  if (status === 429) return new LLMRateLimitError(`LLM rate limit (429): ${message}`, status);
  if (status === 408) return new LLMTimeoutError(`LLM request timed out (408): ${message}`, status);
  if (status >= 500)
    return new LLMServiceUnavailableError(`LLM service error (${status}): ${message}`, status);
  if (CONTEXT_HINTS.test(message)) return new LLMContextWindowExceededError(message, status);
  return new LLMBadRequestError(`LLM rejected the request (${status}): ${message}`, status);
}

/** No HTTP status: the request never got an answer (or never left). */
function connectionFailure(e: ErrorLike | undefined, message: string): LLMError {
  if (e?.name === 'TypeError' && UNSENDABLE_HEADER.test(e.message ?? '')) {
    // undici quotes the header value, key included, in its message: none of it is kept.
    return new LLMAuthenticationError(
      'The LLM API key cannot be sent: it contains a character that is not allowed in an HTTP header',
    );
  }
  const { code, blockedPort } = causeOf(e);
  const permanent = code ? PERMANENT_CONNECTION_CODES[code] : undefined;
  if (code === 'ERR_INVALID_URL') return new LLMBadRequestError(`LLM base URL is invalid: ${message}`);
  if (blockedPort) {
    return new LLMBadRequestError(
      'LLM base URL uses a port that fetch refuses to connect to; use another port',
    );
  }
  if (permanent) {
    return new LLMServiceUnavailableError(
      `Cannot reach the LLM: ${permanent} (${code}); check the LLM base URL`,
      undefined,
      { retryable: false },
    );
  }
  const detail = code ? `${message} (${code})` : message;
  return new LLMServiceUnavailableError(`LLM connection failed: ${detail}`);
}
