// The models offered by name to a settings page (GET /api/options/models): LiteLLM-style ids that
// `route` sends to an endpoint it knows (the provider's own, or OpenHands' LLM proxy for `openhands/`,
// OpenHands' own provider), so each works with an API key alone (the basic settings page of OpenHands'
// UI asks for nothing else), and that the built-in price table knows, so budgets apply. Other models are
// typed in by hand (the advanced settings page): those of the other providers whose endpoint agentd
// knows (deepseek/, gemini/, openrouter/, …) with a key alone, any other (a proxy, ollama/, a server of
// your own) with its base URL.
//
// Each id carries its provider prefix, so a client that groups by it (`provider/model`) needs no list
// of its own. The OpenAI names are ones OpenHands' UI also knows bare, because it saves an OpenAI model
// without its prefix and must still recognize the saved name as one of these on its next visit.
// Claude models leave the list when Anthropic retires them (the models its SDK still names) or dates
// their end (Sonnet 4.5: November 30th, 2026; the SDK warns on each call), and join it once their
// price is in the table.

export const KNOWN_MODELS: readonly string[] = [
  'anthropic/claude-sonnet-4-6',
  'anthropic/claude-opus-4-6',
  'anthropic/claude-opus-4-5-20251101',
  'anthropic/claude-haiku-4-5-20251001',
  'openhands/claude-sonnet-4-6',
  'openhands/claude-opus-4-6',
  'openhands/claude-opus-4-5-20251101',
  'openai/gpt-5-2025-08-07',
  'openai/gpt-5-mini-2025-08-07',
  'openai/gpt-4.1',
  'openai/gpt-4.1-2025-04-14',
  'openai/gpt-4o',
  'openai/gpt-4o-mini',
  'openai/o3',
  'openai/o3-2025-04-16',
  'openai/o4-mini',
  'openai/o4-mini-2025-04-16',
];

/**
 * KNOWN_MODELS by provider prefix, each name without it (OpenHands' verified models, GET
 * /api/llm/models/verified), in the list's order.
 */
export function knownModelsByProvider(): Record<string, string[]> {
  const byProvider = new Map<string, string[]>();
  for (const id of KNOWN_MODELS) {
    const slash = id.indexOf('/');
    const provider = id.slice(0, slash);
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), id.slice(slash + 1)]);
  }
  return Object.fromEntries(byProvider);
}
