// The models offered by name to a settings page (GET /api/options/models): LiteLLM-style ids that
// `route` sends to a provider's own endpoint, so each works with an API key alone (the basic settings
// page of OpenHands' UI asks for nothing else), and that the built-in price table knows, so budgets
// apply. Other models (a proxy, ollama/, gemini/ …) need a base URL: they are typed in by hand (the
// advanced settings page), and work the same.
//
// Each id carries its provider prefix, so a client that groups by it (`provider/model`) needs no list
// of its own. The OpenAI names are ones OpenHands' UI also knows bare, because it saves an OpenAI model
// without its prefix and must still recognize the saved name as one of these on its next visit.

export const KNOWN_MODELS: readonly string[] = [
  'anthropic/claude-sonnet-4-5-20250929',
  'anthropic/claude-haiku-4-5-20251001',
  'anthropic/claude-opus-4-1-20250805',
  'anthropic/claude-opus-4-20250514',
  'anthropic/claude-sonnet-4-20250514',
  'anthropic/claude-3-7-sonnet-20250219',
  'anthropic/claude-3-5-haiku-20241022',
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
