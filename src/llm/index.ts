export { preloadFetch, preloadOpenAI } from './clients.js';
export {
  apiKeyProblem,
  endpointOf,
  type LLMConfigProblem,
  llmConfigProblems,
  OPENHANDS_LLM_PROXY,
  PROVIDERS,
  routingProblems,
  splitModel,
} from './config-check.js';
export {
  classify,
  LLMAuthenticationError,
  LLMBadRequestError,
  LLMContextWindowExceededError,
  LLMError,
  LLMNoResponseError,
  LLMRateLimitError,
  LLMServiceUnavailableError,
  LLMTimeoutError,
} from './errors.js';
export { KNOWN_MODELS, knownModelsByProvider } from './known-models.js';
export {
  backoffSeconds,
  type CreateLLMOptions,
  createLLM,
  RETRY_DEFAULTS,
  type Route,
  route,
} from './llm.js';
export { Metrics } from './metrics.js';
export {
  BUILT_IN_PRICES,
  costOf,
  loadPriceTable,
  type ModelPrice,
  type PriceTable,
  PricingError,
  parsePriceTable,
  priceOf,
} from './pricing.js';
export { type LLMProbe, PROBE_TIMEOUT_S, probeLLM } from './probe.js';
export {
  type RecordedRequest,
  type Script,
  ScriptedLLM,
  type ScriptedToolCall,
  type ScriptStep,
} from './scripted/server.js';
export { mapLlmSecrets } from './secrets.js';
export type {
  CallOptions,
  LLM,
  LLMConfig,
  LlmDelta,
  LlmMessage,
  LlmRequest,
  LlmResponse,
  LlmTool,
  LlmToolCall,
  Logger,
  TokenUsage,
} from './types.js';
