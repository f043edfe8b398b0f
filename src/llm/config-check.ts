// What can be known wrong about an LLM configuration before any request: the conversation layer
// checks it before storing a conversation (a 422 naming the field), and createLLM turns what is left
// into an immediate, non-retried failure of the first call (never a request that cannot succeed).
import { LLMAuthenticationError, LLMBadRequestError, type LLMError } from './errors.js';
import type { LLMConfig } from './types.js';

/** One thing wrong, and the LLMConfig member it is about. */
export interface LLMConfigProblem {
  field: 'model' | 'base_url' | 'api_key';
  message: string;
}

/**
 * OpenHands' own LLM provider (`openhands/<model>`, an OpenHands API key): its LiteLLM proxy, unless
 * the LLM names another base URL, as OpenHands' SDK resolves it.
 */
export const OPENHANDS_LLM_PROXY = 'https://llm-proxy.app.all-hands.dev';

/**
 * The OpenAI-compatible endpoints of providers LiteLLM knows by their prefix, so that a model string
 * OpenHands' clients send (`deepseek/deepseek-chat`, `openrouter/…`, `gemini/…`) runs with its key
 * alone, as there; a `base_url` still wins.
 */
const KNOWN_ENDPOINTS: Readonly<Record<string, string>> = {
  openhands: OPENHANDS_LLM_PROXY,
  openrouter: 'https://openrouter.ai/api/v1',
  deepseek: 'https://api.deepseek.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
  mistral: 'https://api.mistral.ai/v1',
  groq: 'https://api.groq.com/openai/v1',
  xai: 'https://api.x.ai/v1',
  together_ai: 'https://api.together.xyz/v1',
  fireworks_ai: 'https://api.fireworks.ai/inference/v1',
  moonshot: 'https://api.moonshot.ai/v1',
  cerebras: 'https://api.cerebras.ai/v1',
};

/**
 * The providers agentd calls by their LiteLLM prefix, sorted (GET /api/llm/providers): those with an
 * endpoint of their own (their SDK's or a known one), then those reached at a base URL given with the
 * model (Azure OpenAI with its deployment, a LiteLLM proxy, Ollama, vLLM). Any other prefix with a base
 * URL works too, as an OpenAI-compatible server.
 */
export const PROVIDERS: readonly string[] = [
  'anthropic',
  'openai',
  ...Object.keys(KNOWN_ENDPOINTS),
  'azure',
  'litellm_proxy',
  'ollama',
  'hosted_vllm',
].sort();

/** Whether a prefix's provider has a default endpoint (its SDK's, or a known one); others need `base_url`. */
export const hasDefaultEndpoint = (prefix: string): boolean =>
  prefix === '' || prefix === 'openai' || prefix === 'anthropic' || Object.hasOwn(KNOWN_ENDPOINTS, prefix);

/** The model string's LiteLLM provider prefix ('' for a bare name) and the model name after it. */
export function splitModel(model: string): { prefix: string; name: string } {
  const slash = model.indexOf('/');
  return slash === -1
    ? { prefix: '', name: model }
    : { prefix: model.slice(0, slash), name: model.slice(slash + 1) };
}

/** Azure OpenAI (`azure/<deployment>`): its own client, path and API version (clients.ts). */
export const isAzure = (config: Pick<LLMConfig, 'model'>): boolean =>
  splitModel(config.model.trim()).prefix === 'azure';

/** An empty base URL means none (clients send "" as well as null). */
export function baseUrlOf(config: Pick<LLMConfig, 'base_url'>): string | null {
  return config.base_url?.trim() ? config.base_url.trim() : null;
}

/** Where requests go: the LLM's base URL, else its provider's known endpoint, else the SDK's default. */
export function endpointOf(config: Pick<LLMConfig, 'base_url' | 'model'>): string | undefined {
  const own = baseUrlOf(config);
  if (own !== null) return own;
  const { prefix } = splitModel(config.model.trim());
  return Object.hasOwn(KNOWN_ENDPOINTS, prefix) ? KNOWN_ENDPOINTS[prefix] : undefined;
}

/** Problems with the model string and the endpoint (the start of a conversation rejects these). */
export function routingProblems(config: LLMConfig): LLMConfigProblem[] {
  const problems: LLMConfigProblem[] = [];
  const { prefix, name } = splitModel(config.model.trim());
  if (!name.trim()) {
    problems.push({
      field: 'model',
      message: config.model.trim()
        ? `Model ${JSON.stringify(config.model)} names no model after its provider prefix`
        : 'The model must not be empty',
    });
  }
  const baseUrl = baseUrlOf(config);
  if (baseUrl === null) {
    if (!hasDefaultEndpoint(prefix)) {
      problems.push({
        field: 'base_url',
        message: `Model ${config.model} needs a base URL for its ${prefix} endpoint (e.g. http://localhost:4000)`,
      });
    }
  } else {
    const problem = baseUrlProblem(baseUrl);
    if (problem) problems.push({ field: 'base_url', message: problem });
  }
  return problems;
}

function baseUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'The base URL is not a valid URL (e.g. https://api.example.com/v1)';
  }
  // (The URL itself is not quoted back: it may carry credentials, https://user:secret@host.)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'The base URL must start with http:// or https:// (e.g. https://api.example.com/v1)';
  return null;
}

/**
 * Why an API key cannot be sent as an HTTP header value, or null. fetch refuses characters above
 * U+00FF and line breaks; a key pasted with an ellipsis (`sk-…`) or smart quotes is the usual case.
 * The message names the character's code point, never the key.
 */
export function apiKeyProblem(key: string | null | undefined): string | null {
  if (!key) return null;
  const trimmed = key.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  for (const char of trimmed) {
    const code = char.codePointAt(0)!;
    if (code > 0xff || code === 0 || code === 0x0a || code === 0x0d) {
      const codePoint = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      return `The API key contains a character that cannot be sent in an HTTP header (${codePoint}); an API key is plain ASCII — was it pasted with an ellipsis or smart quotes?`;
    }
  }
  return null;
}

/** Every problem, the key's included. */
export function llmConfigProblems(config: LLMConfig): LLMConfigProblem[] {
  const problems = routingProblems(config);
  const key = apiKeyProblem(config.api_key);
  if (key) problems.push({ field: 'api_key', message: key });
  return problems;
}

/** The failure a call with this problem would end in: an authentication error for the key. */
export function problemError(problem: LLMConfigProblem): LLMError {
  return problem.field === 'api_key'
    ? new LLMAuthenticationError(problem.message)
    : new LLMBadRequestError(problem.message);
}
