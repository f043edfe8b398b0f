// The LLM port: one provider-neutral request and response, in OpenHands' Message shape (the events
// catalogue's `Message`), so the agent never sees a provider's wire format.
import type { Static } from 'typebox';
import type { Message, MessageToolCall } from '../events/index.js';

export type LlmMessage = Static<typeof Message>;
export type LlmToolCall = Static<typeof MessageToolCall>;

export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: LlmMessage[];
  tools: LlmTool[];
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  context_window: number;
  per_turn_token: number;
}

export interface LlmResponse {
  /** The provider's response id (becomes `llm_response_id`). */
  id: string;
  model: string;
  /** The assistant message: text content, tool calls, reasoning. */
  message: LlmMessage;
  finishReason: string | null;
  usage: TokenUsage;
  /** USD, from the price table; 0 for unknown models. */
  cost: number;
  latencyMs: number;
  /** Token ids, from a vLLM-style backend asked for them (`return_token_ids`). */
  tokenIds?: { prompt: number[]; response: number[] };
  /** The provider's response as received (for completion logs). */
  raw?: unknown;
}

/** The LLM block of an agent, as OpenHands' clients send it. */
export interface LLMConfig {
  model: string;
  api_key?: string | null;
  base_url?: string | null;
  usage_id?: string;
  num_retries?: number;
  retry_min_wait?: number;
  retry_max_wait?: number;
  retry_multiplier?: number;
  timeout?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  /** Sampling from the k likeliest tokens: Anthropic's Messages API takes it, OpenAI's APIs do not. */
  top_k?: number | null;
  /** OpenAI chat completions' best-effort determinism (the Responses and Messages APIs have none). */
  seed?: number | null;
  max_output_tokens?: number | null;
  reasoning_effort?: string | null;
  /** Responses API reasoning summaries (OpenAI gives them to verified organizations only); none by default. */
  reasoning_summary?: 'auto' | 'concise' | 'detailed' | null;
  /** Azure OpenAI's API version (`azure/<deployment>` models); default clients.ts' AZURE_API_VERSION. */
  api_version?: string | null;
  /** Force (true) or forbid (false) the OpenAI Responses API; by default reasoning models use it. */
  use_responses_api?: boolean | null;
  /** Leave images out of what the model is sent (a model that does not see them refuses them). */
  disable_vision?: boolean | null;
  /** OpenHands' SDK's successor of `use_responses_api`: `chat` or `responses` force the API. */
  api_mode?: 'auto' | 'chat' | 'responses' | null;
  /**
   * OpenHands' SDK's capability overrides, for proxy aliases and models newer than agentd's table:
   * supports_reasoning_effort, supports_sampling_params, supports_prompt_cache, supports_responses_api
   * (true/false) and thinking_mode (adaptive, manual, none, unknown). capabilities.ts reads them.
   */
  capability_overrides?: Record<string, boolean | string> | null;
  /** Per-token prices for this LLM, over the pricing tables (OpenHands' LLM fields). */
  input_cost_per_token?: number | null;
  output_cost_per_token?: number | null;
  /** Headers sent with every request (OpenHands' LLM `extra_headers`: a proxy's, its credentials). */
  extra_headers?: Record<string, string> | null;
  /** Extra members for the request body (LiteLLM's extra_body), e.g. vLLM's `return_token_ids`. */
  litellm_extra_body?: Record<string, unknown> | null;
  /**
   * Tokens Claude may think for in a turn, on the models that think with a budget (OpenHands'
   * default 200k, capped below max_tokens); null or 0: no thinking.
   */
  extended_thinking_budget?: number | null;
  /** Anthropic prompt caching (cache_control on the system prompt and the last user turn); default on. */
  caching_prompt?: boolean | null;
  /** Each completion becomes an LLMCompletionLogEvent (instead of a file on the server). */
  log_completions?: boolean | null;
  /** Stream the completion from the provider; each delta goes to the call's `onDelta`. */
  stream?: boolean | null;
}

/**
 * One piece of a streamed completion, as it arrives: answer text, reasoning text (chat
 * `reasoning_content`, Anthropic thinking, Responses reasoning summaries), or a piece of a tool
 * call's arguments (`index` orders the calls of one response; `id` and `name` come with the first).
 */
export type LlmDelta =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments: string };

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** With `stream: true` in the config, called for each delta, in order, before the call resolves. */
  onDelta?: (delta: LlmDelta) => void;
}

/**
 * Where an LLM reports its retries and failures: the part of pino's logger it uses, so pino (and
 * Fastify's logger, which is pino) fits as it is. The caller binds what names the conversation.
 */
export interface Logger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface LLM {
  readonly config: LLMConfig;
  readonly metrics: import('./metrics.js').Metrics;
  /**
   * One completion, retried only where retrying can help (429, 408, 5xx, timeouts, dropped
   * connections); throws an LLMError subclass.
   */
  complete(request: LlmRequest, signal?: AbortSignal, onDelta?: CallOptions['onDelta']): Promise<LlmResponse>;
}

/** One adapter: a provider's wire format over its official SDK, without retries. */
export interface Adapter {
  complete(request: LlmRequest, options: CallOptions): Promise<Omit<LlmResponse, 'cost' | 'latencyMs'>>;
}
