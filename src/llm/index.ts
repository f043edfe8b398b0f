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
export { backoffSeconds, createLLM, type Route, route } from './llm.js';
export { costOf, Metrics } from './metrics.js';
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
