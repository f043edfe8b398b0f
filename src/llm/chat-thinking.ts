// Claude's thinking blocks as they go back to it (`sentThinkingBlocks`: Anthropic's adapter and a
// proxy's take the same blocks), and as an OpenAI-compatible proxy (LiteLLM's: OpenHands'
// litellm_proxy/ and openhands/ Claude models) answers them: the message's `thinking_blocks`
// (streamed: a delta per piece of thinking, the signature in a delta of its own). They must go back:
// Anthropic refuses a tool turn whose thinking was dropped while thinking is on (the proxy turns it on
// for a `reasoning_effort`), or the proxy drops the thinking.
import type { LlmMessage } from './types.js';

type ThinkingBlock = NonNullable<LlmMessage['thinking_blocks']>[number];

interface Piece {
  type?: unknown;
  thinking?: unknown;
  signature?: unknown;
  data?: unknown;
}

const isText = (v: unknown): v is string => typeof v === 'string';

/** The well-formed thinking blocks of a proxy's message (anything else in the list is left out). */
export function thinkingBlocksOf(value: unknown): ThinkingBlock[] {
  if (!Array.isArray(value)) return [];
  const blocks: ThinkingBlock[] = [];
  for (const b of value as Piece[]) {
    if (b?.type === 'redacted_thinking' && isText(b.data))
      blocks.push({ type: 'redacted_thinking', data: b.data });
    else if (b?.type === 'thinking' && isText(b.thinking))
      blocks.push({
        type: 'thinking',
        thinking: b.thinking,
        signature: isText(b.signature) ? b.signature : null,
      });
  }
  return blocks;
}

/**
 * Thinking blocks put back together from a stream's deltas: the pieces of a block's thinking come one
 * delta each, and its signature, which ends the block, in a delta of its own; what follows a signature
 * is the next block.
 */
export class StreamedThinking {
  private readonly done: ThinkingBlock[] = [];
  private open: { type: 'thinking'; thinking: string; signature: string | null } | null = null;

  add(pieces: unknown): void {
    if (!Array.isArray(pieces)) return;
    for (const p of pieces as Piece[]) {
      if (p?.type === 'redacted_thinking' && isText(p.data)) {
        this.close();
        this.done.push({ type: 'redacted_thinking', data: p.data });
      } else if (p?.type === 'thinking') {
        this.open ??= { type: 'thinking', thinking: '', signature: null };
        if (isText(p.thinking)) this.open.thinking += p.thinking;
        if (isText(p.signature) && p.signature) {
          this.open.signature = p.signature;
          this.close();
        }
      }
    }
  }

  /** The blocks so far; a block whose signature never came is kept as it is (the proxy may omit it). */
  blocks(): ThinkingBlock[] {
    this.close();
    return this.done;
  }

  private close(): void {
    if (this.open) this.done.push(this.open);
    this.open = null;
  }
}

/** A thinking block as it goes back to Claude: Anthropic's block, which LiteLLM's proxy takes as is. */
export type SentThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/**
 * An assistant message's thinking blocks as they go back to Claude, through Anthropic's API (its
 * content blocks) or a proxy (the message's `thinking_blocks`); a stored block may lack its `type`.
 */
export function sentThinkingBlocks(message: LlmMessage): SentThinkingBlock[] {
  return (message.thinking_blocks ?? []).map((b) =>
    b.type === 'redacted_thinking'
      ? { type: 'redacted_thinking', data: (b as { data: string }).data }
      : {
          type: 'thinking',
          thinking: (b as { thinking: string }).thinking,
          signature: (b as { signature?: string | null }).signature ?? '',
        },
  );
}
