// A streamed chat completion put back together: the chunks' deltas accumulate into the one
// `chat.completion` object the same request without streaming answers, so the rest of the adapter
// (and the completion log's `raw`) cannot tell the two apart. Each delta is also handed on as it comes.
import type OpenAI from 'openai';
import { StreamedThinking } from './chat-thinking.js';
import { LLMServiceUnavailableError } from './errors.js';
import type { LlmDelta } from './types.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Completion = OpenAI.Chat.Completions.ChatCompletion;

interface ToolCallParts {
  id: string;
  name: string;
  arguments: string;
}

/** The members compatible servers add: reasoning text (DeepSeek, vLLM, LiteLLM) and vLLM token ids. */
type ExtendedDelta = Chunk['choices'][number]['delta'] & {
  reasoning_content?: string | null;
  /** LiteLLM's proxy: pieces of Claude's thinking blocks (chat-thinking.ts). */
  thinking_blocks?: unknown;
};
type ExtendedChoice = Chunk['choices'][number] & { token_ids?: unknown };

const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));

export async function collectChatStream(
  chunks: AsyncIterable<Chunk>,
  onDelta: (delta: LlmDelta) => void,
  signal: AbortSignal | undefined,
): Promise<Completion> {
  let id = '';
  let model = '';
  let created = 0;
  let content: string | null = null;
  let reasoning: string | null = null;
  let finish: string | null = null;
  let usage: Completion['usage'];
  let promptIds: number[] | null = null;
  let responseIds: number[] | null = null;
  const calls: ToolCallParts[] = [];
  const thinking = new StreamedThinking();
  for await (const chunk of chunks) {
    id ||= chunk.id;
    model ||= chunk.model;
    created ||= chunk.created;
    if (chunk.usage) usage = chunk.usage;
    const prompt = (chunk as { prompt_token_ids?: unknown }).prompt_token_ids;
    if (isIds(prompt)) promptIds = prompt;
    // One choice is asked for (n defaults to 1); a server that sends others is not heard.
    const choice = chunk.choices?.find((c) => c.index === 0) as ExtendedChoice | undefined;
    if (!choice) continue;
    if (choice.finish_reason) finish = choice.finish_reason;
    // Appended in place: a copy per chunk would be quadratic in the answer's length.
    if (isIds(choice.token_ids)) {
      responseIds ??= [];
      responseIds.push(...choice.token_ids);
    }
    const delta = choice.delta as ExtendedDelta | undefined;
    if (!delta) continue;
    thinking.add(delta.thinking_blocks);
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) {
      reasoning = (reasoning ?? '') + delta.reasoning_content;
      onDelta({ type: 'reasoning', text: delta.reasoning_content });
    }
    if (typeof delta.content === 'string' && delta.content) {
      content = (content ?? '') + delta.content;
      onDelta({ type: 'content', text: delta.content });
    }
    for (const part of delta.tool_calls ?? []) {
      if (!calls[part.index]) calls[part.index] = { id: '', name: '', arguments: '' };
      const call = calls[part.index]!;
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      const args = part.function?.arguments ?? '';
      call.arguments += args;
      if (args || part.id || part.function?.name)
        onDelta({
          type: 'tool_call',
          index: part.index,
          ...(part.id ? { id: part.id } : {}),
          ...(part.function?.name ? { name: part.function.name } : {}),
          arguments: args,
        });
    }
  }
  // OpenAI's SDK ends an aborted stream quietly, as if it were complete: it is no answer.
  signal?.throwIfAborted();
  // Every choice ends with a finish_reason; a stream cut before it is a dropped answer (retried).
  if (finish === null)
    throw new LLMServiceUnavailableError('The LLM stream ended before the answer was complete');
  const toolCalls = calls
    .filter((c) => c !== undefined)
    .map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    }));
  const thinkingBlocks = thinking.blocks();
  const message = {
    role: 'assistant' as const,
    content,
    refusal: null,
    ...(reasoning !== null ? { reasoning_content: reasoning } : {}),
    ...(thinkingBlocks.length ? { thinking_blocks: thinkingBlocks } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  };
  const choice = {
    index: 0,
    message,
    finish_reason: finish as Completion['choices'][number]['finish_reason'],
    logprobs: null,
    ...(responseIds ? { token_ids: responseIds } : {}),
  };
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [choice],
    ...(usage ? { usage } : {}),
    ...(promptIds ? { prompt_token_ids: promptIds } : {}),
  } as Completion;
}
