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
export { backoffSeconds, type CreateLLMOptions, createLLM, type Route, route } from './llm.js';
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
export {
  type RecordedRequest,
  type Script,
  ScriptedLLM,
  type ScriptedToolCall,
  type ScriptStep,
} from './scripted/server.js';
export type {
  LLM,
  LLMConfig,
  LlmMessage,
  LlmRequest,
  LlmResponse,
  LlmTool,
  LlmToolCall,
  TokenUsage,
} from './types.js';
