// Which models take a reasoning effort. OpenHands' LLM sends `reasoning_effort: "high"` unless told
// otherwise, whatever the model; OpenAI answers it with a 400 ("Unsupported parameter:
// 'reasoning_effort' is not supported with this model") for its models that do not reason, behind a
// proxy too, so every call of a conversation on GPT-4o or GPT-4.1 failed. OpenHands sends it only to
// models LiteLLM knows to reason; agentd leaves it out for the OpenAI models known not to, and sends
// it to every other model as asked (a server that does not know it ignores it or says so).
import { splitModel } from './config-check.js';

/** OpenAI's models that refuse a reasoning effort: GPT-3.5 and GPT-4 (4o, 4.1, …), the GPT-5 chat models. */
const REFUSE_REASONING_EFFORT = /^(gpt-3\.5|gpt-4|chatgpt-|gpt-5(\.\d+)?-chat)/i;

/** Whether a request to this model (a LiteLLM-style model string) may carry a reasoning effort. */
export function takesReasoningEffort(model: string): boolean {
  return !REFUSE_REASONING_EFFORT.test(splitModel(model.trim()).name);
}
