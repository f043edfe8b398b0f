// OpenAI chat completions with tools, for OpenAI and every compatible server (vLLM, Ollama, LiteLLM
// proxy, …). Parallel tool calls come back as several tool_calls in one message.
import type OpenAI from 'openai';
import { isClaude, marksPromptCache, samplingParams, takesReasoningEffort } from './capabilities.js';
import { collectChatStream } from './chat-stream.js';
import { sentThinkingBlocks, thinkingBlocksOf } from './chat-thinking.js';
import { openaiClient } from './clients.js';
import { isAzure } from './config-check.js';
import { emptyUsage } from './metrics.js';
import type { Adapter, CallOptions, LLMConfig, LlmMessage, LlmRequest } from './types.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function textOf(message: LlmMessage): string {
  return (message.content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
}

/** A message in chat completions' shape; `withThinking`: an assistant's thinking blocks go too. */
function toChat(message: LlmMessage, withThinking: boolean): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: textOf(message) };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id ?? '', content: textOf(message) };
    case 'assistant': {
      const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: textOf(message) || null,
      };
      if (message.tool_calls?.length) {
        out.tool_calls = message.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }));
      }
      if (withThinking && message.thinking_blocks?.length)
        Object.assign(out, { thinking_blocks: sentThinkingBlocks(message) });
      return out;
    }
    default: {
      const parts: OpenAI.Chat.Completions.ChatCompletionContentPart[] = [];
      for (const c of message.content ?? []) {
        if ('image_urls' in c)
          for (const url of c.image_urls) parts.push({ type: 'image_url', image_url: { url } });
        else parts.push({ type: 'text', text: c.text });
      }
      const onlyText = parts.every((p) => p.type === 'text');
      return { role: 'user', content: onlyText ? textOf(message) : parts };
    }
  }
}

/** The prompt-cache mark Anthropic reads (`cache_control`), through its own API or a proxy's. */
export const EPHEMERAL = { type: 'ephemeral' } as const;
type MarkedPart = OpenAI.Chat.Completions.ChatCompletionContentPart & { cache_control?: typeof EPHEMERAL };

/**
 * Claude behind an OpenAI-compatible proxy (LiteLLM's, as OpenHands' own `litellm_proxy/claude-…`)
 * caches only up to parts marked `cache_control`, which the proxy hands on to Anthropic: the system
 * prompt and the last user or tool message are marked, as the Anthropic adapter marks them. OpenAI's
 * own models cache without marks (and are sent none).
 */
function markCacheBreakpoints(messages: ChatMessage[]): void {
  const mark = (message: ChatMessage) => {
    const content = message.content;
    if (content === '' || content == null) return; // an empty block cannot carry the mark
    const parts: MarkedPart[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : (content as MarkedPart[]);
    if (parts.length === 0) return;
    parts[parts.length - 1]!.cache_control = EPHEMERAL;
    (message as { content: unknown }).content = parts;
  };
  if (messages[0]?.role === 'system') mark(messages[0]);
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = messages[i]!.role;
    if (role === 'user' || role === 'tool') {
      mark(messages[i]!);
      return;
    }
  }
}

export class OpenAIChatAdapter implements Adapter {
  private client: Promise<OpenAI> | null = null;

  constructor(
    private readonly config: LLMConfig,
    private readonly model: string,
  ) {}

  async complete(request: LlmRequest, { signal, onDelta }: CallOptions) {
    const c = this.config;
    if (!this.client) this.client = openaiClient(this.config);
    const client = await this.client;
    // Claude behind a proxy (LiteLLM's) gets its cache marks and its thinking back; others neither.
    const claude = isClaude(c);
    const messages = request.messages.map((m) => toChat(m, claude));
    if (marksPromptCache(c, false)) markCacheBreakpoints(messages);
    const params = {
      model: this.model,
      messages,
      ...(request.tools.length
        ? {
            tools: request.tools.map((t) => ({
              type: 'function' as const,
              function: { name: t.name, description: t.description, parameters: t.parameters },
            })),
          }
        : {}),
      ...samplingParams(c, false),
      ...(c.seed != null ? { seed: c.seed } : {}),
      // Azure's deployments take max_tokens (as OpenHands sends it there).
      ...(c.max_output_tokens != null
        ? isAzure(c)
          ? { max_tokens: c.max_output_tokens }
          : { max_completion_tokens: c.max_output_tokens }
        : {}),
      ...(c.reasoning_effort && takesReasoningEffort(c)
        ? { reasoning_effort: c.reasoning_effort as OpenAI.ReasoningEffort }
        : {}),
      // Passed through as given: the user asked this server for these members.
      ...(c.litellm_extra_body ?? {}),
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
    const response = onDelta
      ? await collectChatStream(
          await client.chat.completions.create(
            // Usage comes in a last chunk only when asked for.
            { ...params, stream: true, stream_options: { include_usage: true } },
            { signal },
          ),
          onDelta,
          signal,
        )
      : await client.chat.completions.create(params, { signal });
    const choice = response.choices[0];
    const m = choice?.message as
      | (OpenAI.Chat.Completions.ChatCompletionMessage & {
          reasoning_content?: string | null;
          thinking_blocks?: unknown;
        })
      | undefined;
    const usage = emptyUsage();
    usage.prompt_tokens = response.usage?.prompt_tokens ?? 0;
    usage.completion_tokens = response.usage?.completion_tokens ?? 0;
    usage.cache_read_tokens = response.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    usage.reasoning_tokens = response.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    const message: LlmMessage = {
      role: 'assistant',
      content: m?.content ? [{ type: 'text', text: m.content, cache_prompt: false }] : [],
      thinking_blocks: thinkingBlocksOf(m?.thinking_blocks),
    };
    const toolCalls = (m?.tool_calls ?? []).filter((t) => t.type === 'function');
    if (toolCalls.length) {
      message.tool_calls = toolCalls.map((t) => ({
        id: t.id,
        name: t.function.name,
        arguments: t.function.arguments,
        origin: 'completion' as const,
      }));
    }
    if (m?.reasoning_content) message.reasoning_content = m.reasoning_content;
    const tokenIds = vllmTokenIds(response, choice);
    return {
      id: response.id,
      model: response.model ?? this.model,
      message,
      finishReason: choice?.finish_reason ?? null,
      usage,
      raw: response,
      ...(tokenIds ? { tokenIds } : {}),
    };
  }
}

const isIds = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n));

/**
 * vLLM's OpenAI-compatible server, asked with `return_token_ids`, adds `prompt_token_ids` to the
 * response and `token_ids` to each choice (LiteLLM proxies move the latter under
 * `provider_specific_fields`).
 */
function vllmTokenIds(response: unknown, choice: unknown): { prompt: number[]; response: number[] } | null {
  const prompt = (response as { prompt_token_ids?: unknown }).prompt_token_ids;
  const c = choice as { token_ids?: unknown; provider_specific_fields?: { token_ids?: unknown } } | undefined;
  const out = c?.token_ids ?? c?.provider_specific_fields?.token_ids;
  return isIds(prompt) && isIds(out) ? { prompt, response: out } : null;
}
