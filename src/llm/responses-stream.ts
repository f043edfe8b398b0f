// A streamed Responses API call: each text, reasoning and function-argument delta is handed on as it
// comes, and the answer is the `response.completed` event's response, the object the same request
// without streaming answers. Some providers send that response with an empty `output`; it is then
// filled from the items the stream finished (`response.output_item.done`), as OpenHands does.
import type OpenAI from 'openai';
import { LLMNoResponseError, LLMServiceUnavailableError } from './errors.js';
import type { LlmDelta } from './types.js';

type StreamEvent = OpenAI.Responses.ResponseStreamEvent;
type Response = OpenAI.Responses.Response;

export async function collectResponsesStream(
  events: AsyncIterable<StreamEvent>,
  onDelta: (delta: LlmDelta) => void,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const items: Response['output'] = [];
  // Function calls are numbered in order of appearance, as chat completions number them.
  const callIndex = new Map<string, number>();
  let completed: Response | null = null;
  for await (const event of events) {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) onDelta({ type: 'content', text: event.delta });
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) onDelta({ type: 'reasoning', text: event.delta });
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          const index = callIndex.size;
          callIndex.set(event.item.id ?? event.item.call_id, index);
          onDelta({ type: 'tool_call', index, id: event.item.call_id, name: event.item.name, arguments: '' });
        }
        break;
      case 'response.function_call_arguments.delta':
        if (event.delta)
          onDelta({ type: 'tool_call', index: callIndex.get(event.item_id) ?? 0, arguments: event.delta });
        break;
      case 'response.output_item.done':
        items.push(event.item);
        break;
      case 'response.completed':
      case 'response.incomplete':
        completed = event.response;
        break;
      case 'response.failed':
        throw new LLMServiceUnavailableError(
          `LLM response failed: ${event.response.error?.message ?? 'no reason given'}`,
        );
      case 'error':
        throw new LLMServiceUnavailableError(`LLM stream error: ${event.message}`);
    }
  }
  // OpenAI's SDK ends an aborted stream quietly, as if it were complete: it is no answer.
  signal?.throwIfAborted();
  if (!completed) throw new LLMNoResponseError('The Responses stream ended without a completed response');
  if (!completed.output?.length && items.length) completed.output = items;
  return completed;
}
