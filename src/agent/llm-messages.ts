// Events turned into LLM Messages, one event at a time. ActionEvents of one LLM response become one
// assistant message with several tool calls again, as the provider sent them.
import type { AnyEvent } from '../events/index.js';
import type { LlmMessage } from '../llm/index.js';
import type { LlmContent, Tool } from '../tools/index.js';
import { textContent as text } from './agent-events.js';

const ERROR_PREFIX = '[An error occurred during execution.]\n';
/** Longest text of one tool result the LLM sees (OpenHands' max_message_chars). */
const MAX_MESSAGE_CHARS = 30_000;
const CLIPPED =
  '\n<response clipped><NOTE>Due to the max output limit, only part of the full response has been shown to you.</NOTE>\n';
/** Put before a condenser's summary so the model reads it as context, not as a new request. */
export const SUMMARY_HEADER =
  '[Summary of the earlier part of this conversation, condensed to save context]\n';

/** Keeps the head and the tail of a text that is too long for one message. */
function bounded(content: LlmContent): LlmContent {
  if (!('text' in content) || content.text.length <= MAX_MESSAGE_CHARS) return content;
  const half = Math.floor((MAX_MESSAGE_CHARS - CLIPPED.length) / 2);
  return {
    ...content,
    text: content.text.slice(0, half) + CLIPPED + content.text.slice(content.text.length - half),
  };
}

type E = AnyEvent & Record<string, unknown>;

export class MessageBuilder {
  readonly messages: LlmMessage[] = [];
  /** The llm_response_id of the assistant message last built from ActionEvents. */
  private lastResponseId: string | null = null;

  constructor(private readonly tools: ReadonlyMap<string, Tool>) {}

  add(event: E): void {
    switch (event.kind) {
      case 'SystemPromptEvent': {
        const e = event as E & { system_prompt: { text: string }; dynamic_context?: { text: string } | null };
        const content = [text(e.system_prompt.text)];
        if (e.dynamic_context) content.push(text(e.dynamic_context.text));
        this.push({ role: 'system', content });
        return;
      }
      case 'MessageEvent': {
        const e = event as E & { llm_message: LlmMessage; extended_content?: { text: string }[] };
        const extra = (e.extended_content ?? []).map((c) => text(c.text));
        this.push({ ...e.llm_message, content: [...(e.llm_message.content ?? []), ...extra] });
        return;
      }
      case 'CondensationSummaryEvent': {
        const e = event as E & { summary: string };
        this.push({ role: 'user', content: [text(SUMMARY_HEADER + e.summary)] });
        return;
      }
      case 'ActionEvent': {
        const e = event as E & {
          llm_response_id: string;
          thought: { text: string }[];
          tool_call: { id: string; name: string; arguments: string; origin: 'completion' | 'responses' };
          reasoning_content?: string | null;
          thinking_blocks?: LlmMessage['thinking_blocks'];
          responses_reasoning_item?: LlmMessage['responses_reasoning_item'];
        };
        const last = this.messages[this.messages.length - 1];
        if (last && last.role === 'assistant' && this.lastResponseId === e.llm_response_id) {
          last.tool_calls = [...(last.tool_calls ?? []), e.tool_call];
          return;
        }
        const message: LlmMessage = {
          role: 'assistant',
          content: e.thought.map((t) => text(t.text)),
          tool_calls: [e.tool_call],
          thinking_blocks: e.thinking_blocks ?? [],
        };
        if (e.reasoning_content) message.reasoning_content = e.reasoning_content;
        if (e.responses_reasoning_item) message.responses_reasoning_item = e.responses_reasoning_item;
        this.push(message);
        this.lastResponseId = e.llm_response_id;
        return;
      }
      case 'ObservationEvent': {
        const e = event as E & {
          tool_name: string;
          tool_call_id: string;
          observation: { content?: LlmContent[]; is_error?: boolean };
        };
        const tool = this.tools.get(e.tool_name);
        const body = (
          tool?.toLlmContent ? tool.toLlmContent(e.observation) : (e.observation.content ?? [])
        ).map(bounded);
        const content = e.observation.is_error ? [text(ERROR_PREFIX), ...body] : body;
        this.push({ role: 'tool', tool_call_id: e.tool_call_id, name: e.tool_name, content });
        return;
      }
      case 'AgentErrorEvent': {
        const e = event as E & { tool_name: string; tool_call_id: string; error: string };
        this.push({
          role: 'tool',
          tool_call_id: e.tool_call_id,
          name: e.tool_name,
          content: [text(e.error)],
        });
        return;
      }
      case 'UserRejectObservation': {
        const e = event as E & { tool_name: string; tool_call_id: string; rejection_reason?: string };
        this.push({
          role: 'tool',
          tool_call_id: e.tool_call_id,
          name: e.tool_name,
          content: [text(`Action rejected: ${e.rejection_reason ?? 'User rejected the action'}`)],
        });
        return;
      }
      default:
        return;
    }
  }

  private push(message: LlmMessage): void {
    this.messages.push(message);
    this.lastResponseId = null;
  }
}

/** The kinds the LLM sees (OpenHands' LLMConvertibleEvent); everything else stays out of the view. */
export const LLM_KINDS: ReadonlySet<string> = new Set([
  'SystemPromptEvent',
  'MessageEvent',
  'CondensationSummaryEvent',
  'ActionEvent',
  'ObservationEvent',
  'AgentErrorEvent',
  'UserRejectObservation',
]);

/** The kinds that answer a tool call (by `tool_call_id`). */
export const ANSWER_KINDS: ReadonlySet<string> = new Set([
  'ObservationEvent',
  'AgentErrorEvent',
  'UserRejectObservation',
]);
