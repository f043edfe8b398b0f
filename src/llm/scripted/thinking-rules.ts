// What Anthropic's Messages API refuses, or adds, when a request turns thinking on (with a budget or
// adaptive), so that a client of the scripted LLM meets the same rules as with Claude: a request that
// breaks one is answered 400 (invalid_request_error, a message naming the rule, worded after the
// API's where it was known; the rules are Anthropic's documented ones, not checked against the live
// API here), and an answer to one that keeps them starts with a thinking block (the script's, else one
// made up, signed), as Claude's would.
import type { IncomingHttpHeaders } from 'node:http';

interface ThinkingParam {
  type?: unknown;
  budget_tokens?: unknown;
}

type Block = { type?: unknown };

const EFFORTS = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/** Whether a request turns thinking on: with a budget, or adaptive. */
export const thinkingOn = (body: Record<string, unknown>): boolean => {
  const type = (body.thinking as ThinkingParam | undefined)?.type;
  return type === 'enabled' || type === 'adaptive';
};

/** Why the Messages API would refuse this request, or null when it would not. */
export function thinkingViolation(
  body: Record<string, unknown>,
  headers: IncomingHttpHeaders,
): string | null {
  const effort = (body.output_config as { effort?: unknown } | undefined)?.effort;
  if (effort !== undefined && effort !== null && !EFFORTS.has(String(effort)))
    return `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'`;
  if (!thinkingOn(body)) return null;
  const adaptive = (body.thinking as ThinkingParam).type === 'adaptive';
  if (!adaptive) {
    const budget = (body.thinking as ThinkingParam).budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1024)
      return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    const interleaved = String(headers['anthropic-beta'] ?? '').includes('interleaved-thinking');
    if (!interleaved && !(typeof body.max_tokens === 'number' && budget < body.max_tokens))
      return '`max_tokens` must be greater than `thinking.budget_tokens`';
  }
  if (body.temperature !== undefined && body.temperature !== 1)
    return '`temperature` may only be set to 1 when thinking is enabled';
  if (body.top_k !== undefined) return '`top_k` cannot be set when thinking is enabled';
  if (body.top_p !== undefined && (typeof body.top_p !== 'number' || body.top_p < 0.95))
    return '`top_p` must be greater than or equal to 0.95 when thinking is enabled';
  // Adaptive thinking may skip a turn: a tool turn without thinking is one it could have made.
  if (adaptive) return null;
  const turns = (body.messages as { role?: unknown; content?: unknown }[] | undefined) ?? [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role !== 'assistant' || !Array.isArray(turn.content)) continue;
    const blocks = turn.content as Block[];
    const first = blocks[0]?.type;
    if (blocks.some((b) => b.type === 'tool_use') && first !== 'thinking' && first !== 'redacted_thinking')
      return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
    break;
  }
  return null;
}
