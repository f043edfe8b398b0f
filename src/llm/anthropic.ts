// Anthropic Messages: system prompt apart, tool results as user turns, and thinking / redacted
// thinking blocks (with signatures) passed back on later turns as the API requires.
import type Anthropic from '@anthropic-ai/sdk';
import { thinkingRequest } from './anthropic-thinking.js';
import { marksPromptCache, samplingParams } from './capabilities.js';
import { sentThinkingBlocks } from './chat-thinking.js';
import { anthropicClient } from './clients.js';
import { emptyUsage } from './metrics.js';
import { EPHEMERAL, textOf } from './openai-chat.js';
import type { Adapter, CallOptions, LLMConfig, LlmDelta, LlmMessage, LlmRequest } from './types.js';

type Block = Anthropic.Messages.ContentBlockParam;
type Turn = Anthropic.Messages.MessageParam;

function imageBlock(url: string): Block | null {
  const m = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(url);
  if (m) return { type: 'image', source: { type: 'base64', media_type: m[1] as 'image/png', data: m[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

function toTurns(messages: LlmMessage[]): { system: string; turns: Turn[] } {
  const system = messages
    .filter((m) => m.role === 'system')
    .map(textOf)
    .join('\n\n');
  const turns: Turn[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = turns[turns.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) (last.content as Block[]).push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: textOf(m) }]);
    } else if (m.role === 'assistant') {
      const blocks: Block[] = sentThinkingBlocks(m);
      const text = textOf(m);
      if (text) blocks.push({ type: 'text', text });
      for (const call of m.tool_calls ?? []) {
        let input: unknown = {};
        try {
          input = JSON.parse(call.arguments || '{}');
        } catch {
          input = {};
        }
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input });
      }
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: ' ' }]);
    } else {
      const blocks: Block[] = [];
      for (const c of m.content ?? []) {
        if ('image_urls' in c)
          for (const url of c.image_urls) {
            const image = imageBlock(url);
            if (image) blocks.push(image);
          }
        else blocks.push({ type: 'text', text: c.text });
      }
      push('user', blocks.length ? blocks : [{ type: 'text', text: ' ' }]);
    }
  }
  return { system, turns };
}

/**
 * Anthropic caches a prompt's prefix only up to the blocks marked `cache_control` (OpenHands'
 * `caching_prompt`, on by default): the system prompt (with the tools before it) and the last block of
 * the last user turn, so each step reads the conversation so far from the cache (a tenth of the input
 * price, and faster) and writes only what the step added. Two of the four marks the API allows.
 */
function markCacheBreakpoint(turns: Turn[]): void {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role !== 'user' || !Array.isArray(turn.content) || turn.content.length === 0) continue;
    const last = turn.content[turn.content.length - 1] as Block & { cache_control?: typeof EPHEMERAL };
    if (last.type === 'text' || last.type === 'image' || last.type === 'tool_result')
      last.cache_control = EPHEMERAL;
    return;
  }
}

export class AnthropicAdapter implements Adapter {
  private client: Promise<Anthropic> | null = null;

  constructor(
    private readonly config: LLMConfig,
    private readonly model: string,
  ) {}

  async complete(request: LlmRequest, { signal, onDelta }: CallOptions) {
    const { system, turns } = toTurns(request.messages);
    const c = this.config;
    const caching = marksPromptCache(c, true);
    if (caching) markCacheBreakpoint(turns);
    if (!this.client) this.client = anthropicClient(this.config);
    const client = await this.client;
    const thinking = thinkingRequest(c, turns);
    const params = {
      model: this.model,
      max_tokens: thinking.max_tokens,
      ...(system
        ? { system: caching ? [{ type: 'text' as const, text: system, cache_control: EPHEMERAL }] : system }
        : {}),
      messages: turns,
      ...(request.tools.length
        ? {
            tools: request.tools.map((t) => ({
              name: t.name,
              description: t.description,
              input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
            })),
          }
        : {}),
      // The API takes no sampling parameters with thinking on (OpenHands drops them too).
      ...(thinking.params ?? samplingParams(c, true)),
      // Passed through as given, as to OpenAI's APIs: the user asked this server for these members.
      ...(c.litellm_extra_body ?? {}),
    };
    const options = { signal, headers: thinking.headers };
    const response = onDelta
      ? await streamed(client.messages.stream(params, options), onDelta)
      : await client.messages.create(params, options);
    const message: LlmMessage = { role: 'assistant', content: [], thinking_blocks: [] };
    const calls: NonNullable<LlmMessage['tool_calls']> = [];
    for (const block of response.content) {
      if (block.type === 'text')
        message.content!.push({ type: 'text', text: block.text, cache_prompt: false });
      else if (block.type === 'thinking')
        message.thinking_blocks!.push({
          type: 'thinking',
          thinking: block.thinking,
          signature: block.signature,
        });
      else if (block.type === 'redacted_thinking')
        message.thinking_blocks!.push({ type: 'redacted_thinking', data: block.data });
      else if (block.type === 'tool_use')
        calls.push({
          id: block.id,
          name: block.name,
          arguments: JSON.stringify(block.input ?? {}),
          origin: 'completion',
        });
    }
    if (calls.length) message.tool_calls = calls;
    const usage = emptyUsage();
    // Anthropic's input_tokens leaves out what was read from or written to the prompt cache; the
    // prompt is all three, as the other APIs count it (and as the agent's context size needs it).
    usage.cache_read_tokens = response.usage.cache_read_input_tokens ?? 0;
    usage.cache_write_tokens = response.usage.cache_creation_input_tokens ?? 0;
    usage.prompt_tokens = response.usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    usage.completion_tokens = response.usage.output_tokens;
    return {
      id: response.id,
      model: response.model,
      message,
      finishReason: response.stop_reason ?? null,
      usage,
      raw: response,
    };
  }
}

/**
 * Hands on each text, thinking and tool-input delta of a streamed message, then answers the message
 * the SDK assembled from the stream: the same Message the call without streaming answers.
 */
async function streamed(
  stream: ReturnType<Anthropic['messages']['stream']>,
  onDelta: (delta: LlmDelta) => void,
): Promise<Anthropic.Messages.Message> {
  // Tool calls are numbered among tool_use blocks, as chat completions number them.
  const toolIndex = new Map<number, number>();
  for await (const event of stream) {
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      const index = toolIndex.size;
      toolIndex.set(event.index, index);
      const { id, name } = event.content_block;
      onDelta({ type: 'tool_call', index, id, name, arguments: '' });
    } else if (event.type === 'content_block_delta') {
      const d = event.delta;
      if (d.type === 'text_delta' && d.text) onDelta({ type: 'content', text: d.text });
      else if (d.type === 'thinking_delta' && d.thinking) onDelta({ type: 'reasoning', text: d.thinking });
      else if (d.type === 'input_json_delta' && d.partial_json)
        onDelta({ type: 'tool_call', index: toolIndex.get(event.index) ?? 0, arguments: d.partial_json });
    }
  }
  return stream.finalMessage();
}
