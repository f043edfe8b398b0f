// Events about LLM calls themselves: TokenEvent (token ids from a vLLM-style backend) and
// LLMCompletionLogEvent (OpenHands' completion log, streamed to the client instead of written to
// the server's disk). Logs are JSON of the request, the provider's response, cost and timing; every
// secret the conversation knows (the LLM key, conversation secrets) is masked in them.
import { randomBytes } from 'node:crypto';
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import type { LLM, LlmRequest, LlmResponse } from '../llm/index.js';

export function tokenEvent(response: LlmResponse): AnyEvent | null {
  if (!response.tokenIds) return null;
  return {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'agent',
    prompt_token_ids: response.tokenIds.prompt,
    response_token_ids: response.tokenIds.response,
    kind: 'TokenEvent',
  } as AnyEvent;
}

const MASK = '<secret-hidden>';

/** Masks each secret as it appears in text and as it appears escaped inside JSON strings. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  for (const secret of [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)) {
    const escaped = JSON.stringify(secret).slice(1, -1);
    out = out.split(secret).join(MASK);
    if (escaped !== secret) out = out.split(escaped).join(MASK);
  }
  return out;
}

export function completionLogEvent(
  llm: LLM,
  request: LlmRequest,
  outcome: { response: LlmResponse } | { error: Error },
  secrets: readonly string[],
): AnyEvent {
  const error = 'error' in outcome;
  const filename = `${llm.config.model.replaceAll('/', '__')}-${(Date.now() / 1000).toFixed(3)}-${randomBytes(2).toString('hex')}${error ? '-error' : ''}.json`;
  const data: Record<string, unknown> = {
    model: llm.config.model,
    messages: request.messages,
    tools: request.tools,
    timestamp: Date.now() / 1000,
  };
  if ('error' in outcome) {
    data.error = { type: outcome.error.name, message: outcome.error.message };
    data.cost = 0;
  } else {
    const r = outcome.response;
    data.response = r.raw ?? r.message;
    data.cost = r.cost;
    data.latency_sec = r.latencyMs / 1000;
    data.usage_summary = {
      prompt_tokens: r.usage.prompt_tokens,
      completion_tokens: r.usage.completion_tokens,
      reasoning_tokens: r.usage.reasoning_tokens,
      cache_read_tokens: r.usage.cache_read_tokens,
    };
  }
  // The LLM's own credentials: its key and its extra headers' values (a proxy's token).
  const keys = [llm.config.api_key, ...Object.values(llm.config.extra_headers ?? {})].filter(
    (k): k is string => typeof k === 'string',
  );
  return {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'environment',
    filename,
    log_data: maskSecrets(JSON.stringify(data), [...keys, ...secrets]),
    model_name: llm.config.model,
    usage_id: llm.config.usage_id ?? 'default',
    kind: 'LLMCompletionLogEvent',
  } as AnyEvent;
}
