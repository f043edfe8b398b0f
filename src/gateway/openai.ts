// OpenHands' OpenAI-compatible gateway: a chat completion becomes a conversation of the caller's (or
// a message to one it names again), run to its end, and the agent's final answer comes back as the
// assistant's message. The model names one of the caller's LLM profiles: `openhands_<name>`. System
// and developer messages are added to the agent's system prompt; the last user message is the task.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { nullIfNotFound } from '../conversation/errors.js';
import type { SendMessageRequest } from '../conversation/schemas.js';
import type { ConversationService } from '../conversation/service.js';
import type { SettingsService } from '../settings/index.js';
import type { ChatCompletion, ChatCompletionRequest, ChatMessage, ModelList, Usage } from './schemas.js';

export const MODEL_PREFIX = 'openhands_';
/** How long a request waits for the agent (OpenHands waits 120 s; a coding task often takes longer). */
export const GATEWAY_TIMEOUT_MS = 10 * 60_000;

/** Why a completion was refused or did not come: the route turns each kind into its status. */
export class GatewayError extends Error {
  override name = 'GatewayError';
  constructor(
    readonly kind: 'bad_request' | 'unknown_model' | 'not_finished' | 'failed' | 'timeout' | 'shutting_down',
    message: string,
    /** The conversation the request ran in, when it got that far (the client may look at it, or go on). */
    readonly conversationId?: string,
  ) {
    super(message);
  }
}

type Content = NonNullable<SendMessageRequest['content']>;

export interface GatewayDeps {
  conversations: ConversationService;
  settings: SettingsService;
  /** Where each gateway conversation gets a working folder of its own (`<dir>/<conversation id>`). */
  workspaceRoot: string;
  timeoutMs?: number;
}

export class ChatGateway {
  private stop: () => void = () => {};
  /** Settles when the server starts closing: the requests still waiting answer then, not at the cut. */
  private readonly closing = new Promise<'closing'>((resolve) => {
    this.stop = () => resolve('closing');
  });

  constructor(private readonly deps: GatewayDeps) {}

  /** Ends every wait: each answers `shutting_down` (a restart finds the conversation cut off). */
  close(): void {
    this.stop();
  }

  /** GET /v1/models: the caller's LLM profiles, as models (sorted by id). */
  async models(userId: string): Promise<ModelList> {
    const { profiles } = await this.deps.settings.listProfiles(userId);
    const data = profiles
      .map((p) => ({
        id: `${MODEL_PREFIX}${p.name}`,
        object: 'model' as const,
        created: 0,
        owned_by: 'openhands',
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return { object: 'list', data };
  }

  /**
   * Runs the request's last user message in a new conversation, or in `reuseId` when it is one of the
   * caller's (a new conversation of that id when not), and answers the agent's final response.
   */
  async complete(
    userId: string,
    request: ChatCompletionRequest,
    reuseId: string | null,
  ): Promise<{ conversationId: string; completion: ChatCompletion }> {
    const { conversations } = this.deps;
    const profile = await this.profileOf(userId, request.model);
    const content = contentOf(latestUserMessage(request.messages));
    if (content.length === 0)
      throw new GatewayError('bad_request', 'The last user message has no text or image');
    const existing =
      reuseId === null ? null : await conversations.info(userId, reuseId).catch(nullIfNotFound);
    const id = existing?.id ?? reuseId ?? randomUUID();
    if (existing) await conversations.sendMessage(userId, id, { role: 'user', content, run: true });
    else {
      const system = systemText(request.messages);
      await conversations.start(userId, {
        conversation_id: id,
        workspace: { working_dir: join(this.deps.workspaceRoot, id) },
        llm_profile: profile,
        initial_message: { role: 'user', content, run: true },
        ...(system ? { agent_launch_additions: { system_message_suffix_append: system } } : {}),
      });
    }
    const status = await Promise.race([
      conversations.settled(userId, id, this.deps.timeoutMs ?? GATEWAY_TIMEOUT_MS),
      this.closing,
    ]);
    if (status === 'closing')
      throw new GatewayError('shutting_down', 'The server is shutting down; the run was cut off', id);
    if (status === 'running') throw new GatewayError('timeout', 'Agent run timed out', id);
    if (status === 'error' || status === 'stuck')
      throw new GatewayError('failed', `Agent run ended with status: ${status}`, id);
    if (status === 'paused' || status === 'waiting_for_confirmation')
      throw new GatewayError('not_finished', `Agent run ended with status: ${status}`, id);
    const after = usageOf((await conversations.info(userId, id)).stats);
    const before = existing ? usageOf(existing.stats) : { prompt_tokens: 0, completion_tokens: 0 };
    const prompt = after.prompt_tokens - before.prompt_tokens;
    const completion = after.completion_tokens - before.completion_tokens;
    return {
      conversationId: id,
      completion: {
        id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: { role: 'assistant', content: await conversations.finalResponse(userId, id) },
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      },
    };
  }

  /** The profile a model names (`openhands_<name>`), one of the caller's. */
  private async profileOf(userId: string, model: string): Promise<string> {
    const name = model.startsWith(MODEL_PREFIX) ? model.slice(MODEL_PREFIX.length) : '';
    const { profiles } = await this.deps.settings.listProfiles(userId);
    if (!name || !profiles.some((p) => p.name === name))
      throw new GatewayError('unknown_model', `Unknown OpenHands model '${model}'. Use GET /v1/models.`);
    return name;
  }
}

function latestUserMessage(messages: readonly ChatMessage[]): ChatMessage {
  const message = messages.findLast((m) => m.role === 'user');
  if (!message) throw new GatewayError('bad_request', 'At least one user message is required');
  return message;
}

/** A message's text and images as a conversation message holds them. */
function contentOf(message: ChatMessage): Content {
  const content = message.content;
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const parts: Content = [];
  for (const part of content ?? []) {
    if (part.type === 'text') {
      if (part.text) parts.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      const url = typeof part.image_url === 'string' ? part.image_url : part.image_url?.url;
      if (!url) throw new GatewayError('bad_request', 'image_url content part is missing a url');
      parts.push({ type: 'image', image_urls: [url] });
    } else throw new GatewayError('bad_request', `Unsupported content part type: ${part.type}`);
  }
  return parts;
}

function systemText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) =>
      contentOf(m)
        .map((c) => (c.type === 'text' ? c.text : ''))
        .filter(Boolean)
        .join('\n'),
    )
    .filter(Boolean)
    .join('\n\n');
}

/** Tokens of every LLM of the conversation (the agent's, a condenser's, …), from its stats. */
function usageOf(stats: Record<string, unknown>): Omit<Usage, 'total_tokens'> {
  const metrics = (stats.usage_to_metrics ?? {}) as Record<
    string,
    { accumulated_token_usage?: Record<string, unknown> }
  >;
  let prompt = 0;
  let completion = 0;
  for (const m of Object.values(metrics)) {
    const usage = m?.accumulated_token_usage ?? {};
    if (typeof usage.prompt_tokens === 'number') prompt += usage.prompt_tokens;
    if (typeof usage.completion_tokens === 'number') completion += usage.completion_tokens;
  }
  return { prompt_tokens: prompt, completion_tokens: completion };
}
