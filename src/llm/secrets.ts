// An LLM config's secrets: its api_key and the values of its extra_headers (a proxy's credentials ride
// there). Sealed where a config is stored (a conversation's agent, a saved LLM profile), masked in what
// clients read, opened to call the LLM.
import type { LLMConfig } from './types.js';

/**
 * The config with its api_key and every extra header value passed through `f` (seal, mask or open);
 * an empty or absent key becomes null, as a stored config has it.
 */
export function mapLlmSecrets<T extends Pick<LLMConfig, 'api_key' | 'extra_headers'>>(
  llm: T,
  f: (value: string) => string,
): T {
  const mapped: T = { ...llm, api_key: llm.api_key ? f(llm.api_key) : null };
  if (llm.extra_headers)
    mapped.extra_headers = Object.fromEntries(Object.entries(llm.extra_headers).map(([k, v]) => [k, f(v)]));
  return mapped;
}
