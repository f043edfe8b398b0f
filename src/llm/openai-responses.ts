// OpenAI Responses API, used by reasoning models: reasoning items come back as
// `responses_reasoning_item` (with encrypted content, passed back on later turns since nothing is
// stored server-side), tool calls have origin `responses`, tool results are function_call_output items.
import type OpenAI from 'openai';
import { takesReasoningEffort } from './capabilities.js';
import { openaiClient } from './clients.js';
import { emptyUsage } from './metrics.js';
import { textOf } from './openai-chat.js';
import { collectResponsesStream } from './responses-stream.js';
import type { Adapter, CallOptions, LLMConfig, LlmMessage, LlmRequest } from './types.js';

type InputItem = OpenAI.Responses.ResponseInputItem;

function toInput(messages: LlmMessage[]): { instructions: string; input: InputItem[] } {
  const instructions = messages
    .filter((m) => m.role === 'system')
    .map(textOf)
    .join('\n\n');
  const input: InputItem[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      input.push({ type: 'function_call_output', call_id: m.tool_call_id ?? '', output: textOf(m) });
    } else if (m.role === 'assistant') {
      const r = m.responses_reasoning_item;
      if (r?.id) {
        input.push({
          type: 'reasoning',
          id: r.id,
          summary: (r.summary ?? []).map((text) => ({ type: 'summary_text' as const, text })),
          ...(r.encrypted_content ? { encrypted_content: r.encrypted_content } : {}),
        } as InputItem);
      }
      const text = textOf(m);
      if (text) input.push({ role: 'assistant', content: text } as InputItem);
      for (const call of m.tool_calls ?? []) {
        input.push({
          type: 'function_call',
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        } as InputItem);
      }
    } else {
      const content: OpenAI.Responses.ResponseInputContent[] = [];
      for (const c of m.content ?? []) {
        if ('image_urls' in c)
          for (const url of c.image_urls)
            content.push({ type: 'input_image', image_url: url, detail: 'auto' });
        else content.push({ type: 'input_text', text: c.text });
      }
      input.push({ role: 'user', content });
    }
  }
  return { instructions, input };
}

/**
 * The reasoning asked for: the effort, and summaries only when the LLM asks for them (OpenAI refuses
 * them, 400 on every call, to an organization it has not verified; OpenHands sends none by default).
 */
function reasoningOf(c: LLMConfig) {
  const effort = c.reasoning_effort && takesReasoningEffort(c) ? c.reasoning_effort : null;
  if (!effort && !c.reasoning_summary) return {};
  return {
    reasoning: {
      ...(effort ? { effort: effort as OpenAI.ReasoningEffort } : {}),
      ...(c.reasoning_summary ? { summary: c.reasoning_summary } : {}),
    },
  };
}

export class OpenAIResponsesAdapter implements Adapter {
  private client: Promise<OpenAI> | null = null;

  constructor(
    private readonly config: LLMConfig,
    private readonly model: string,
  ) {}

  async complete(request: LlmRequest, { signal, onDelta }: CallOptions) {
    const { instructions, input } = toInput(request.messages);
    const c = this.config;
    if (!this.client) this.client = openaiClient(this.config);
    const client = await this.client;
    const params = {
      model: this.model,
      input,
      ...(instructions ? { instructions } : {}),
      store: false,
      include: ['reasoning.encrypted_content' as const],
      ...(request.tools.length
        ? {
            tools: request.tools.map((t) => ({
              type: 'function' as const,
              name: t.name,
              description: t.description,
              parameters: t.parameters,
              strict: false,
            })),
          }
        : {}),
      ...reasoningOf(c),
      ...(c.max_output_tokens != null ? { max_output_tokens: c.max_output_tokens } : {}),
    };
    const response = onDelta
      ? await collectResponsesStream(
          await client.responses.create({ ...params, stream: true }, { signal }),
          onDelta,
          signal,
        )
      : await client.responses.create(params, { signal });
    const message: LlmMessage = { role: 'assistant', content: [], thinking_blocks: [] };
    const calls: NonNullable<LlmMessage['tool_calls']> = [];
    for (const item of response.output ?? []) {
      if (item.type === 'message') {
        for (const part of item.content)
          if (part.type === 'output_text')
            message.content!.push({ type: 'text', text: part.text, cache_prompt: false });
      } else if (item.type === 'function_call') {
        calls.push({
          id: item.call_id,
          name: item.name,
          arguments: item.arguments,
          origin: 'responses',
          ...(item.id ? { responses_item_id: item.id } : {}),
        });
      } else if (item.type === 'reasoning') {
        message.responses_reasoning_item = {
          id: item.id,
          summary: (item.summary ?? []).map((s) => s.text),
          content: (item.content ?? []).map((c) => c.text),
          encrypted_content: item.encrypted_content ?? null,
          status: item.status ?? null,
        };
      }
    }
    if (calls.length) message.tool_calls = calls;
    const usage = emptyUsage();
    usage.prompt_tokens = response.usage?.input_tokens ?? 0;
    usage.completion_tokens = response.usage?.output_tokens ?? 0;
    usage.cache_read_tokens = response.usage?.input_tokens_details?.cached_tokens ?? 0;
    usage.reasoning_tokens = response.usage?.output_tokens_details?.reasoning_tokens ?? 0;
    return {
      id: response.id,
      model: response.model ?? this.model,
      message,
      finishReason: response.status ?? null,
      usage,
      raw: response,
    };
  }
}
