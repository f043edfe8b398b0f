// The LLM-summarizing condenser (OpenHands' LLMSummarizingCondenser, agentd's own prompt). When the
// view grows past `maxSize` events (or past `maxTokens` by the last response's usage), or a
// CondensationRequest is pending, it forgets the middle of the view: the first `keepFirst` events stay,
// about half of the view stays at the end, and an LLM summary of the rest takes its place. The result
// is a Condensation event; the view applies it (see view.ts). Tool batches are never split.
import type { AnyEvent } from '../events/index.js';
import { newEventId, nowTimestamp } from '../events/index.js';
import type { LLM } from '../llm/index.js';
import { eventParts, summarizationPrompt } from './condenser-prompt.js';
import { type Entry, safeCuts } from './tool-batches.js';
import type { MessageView } from './view.js';

export interface CondenserConfig {
  /** The LLM that writes summaries (its own usage id, usually `condenser`). */
  llm: LLM;
  /** Condense when the view holds more events than this. */
  maxSize: number;
  /** Events at the start of the view that are never forgotten (the system prompt and first request). */
  keepFirst: number;
  /** Also condense when the last LLM call's prompt and completion passed this many tokens. */
  maxTokens?: number | null;
}

/** Why a condensation happens: a request (explicit or context window exceeded), tokens, or size. */
export type CondensationReason = 'request' | 'tokens' | 'size';

export class InvalidCondenserError extends Error {
  override name = 'InvalidCondenserError';
}

/** Why these sizes cannot work, or null. Same rule as OpenHands: a size condensation must leave a tail. */
export function condenserProblem(maxSize: number, keepFirst: number): string | null {
  if (!Number.isInteger(maxSize) || maxSize < 1) return 'max_size must be a positive integer';
  if (!Number.isInteger(keepFirst) || keepFirst < 0) return 'keep_first must be an integer of 0 or more';
  if (Math.floor(maxSize / 2) - keepFirst - 1 <= 0)
    return 'keep_first must be less than max_size // 2 - 1, to leave room for recent events';
  return null;
}

export class SummarizingCondenser {
  constructor(readonly config: CondenserConfig) {
    const problem = condenserProblem(config.maxSize, config.keepFirst);
    if (problem) throw new InvalidCondenserError(problem);
  }

  /** Why the view should be condensed before the next LLM call, or null. */
  reason(view: MessageView, contextTokens: number | null): CondensationReason | null {
    if (view.condensationRequested) return 'request';
    const { maxTokens, maxSize } = this.config;
    if (maxTokens && contextTokens !== null && contextTokens > maxTokens) return 'tokens';
    return view.events.length > maxSize ? 'size' : null;
  }

  /**
   * Summarizes the forgotten part of the view and returns the Condensation, or null when nothing can be
   * forgotten without splitting a tool call from its result (the view is small, or one batch spans it).
   */
  async condense(
    view: MessageView,
    reason: CondensationReason,
    signal?: AbortSignal,
  ): Promise<AnyEvent | null> {
    const entries = view.events;
    const range = planForgetting(entries, this.config, reason);
    if (!range) return null;
    const forgotten = entries.slice(range.start, range.end);
    // At most one summary is in the view; its text is carried into the new one wherever it sits.
    const previous = entries.find((e) => e.kind === 'CondensationSummaryEvent');
    let summary = previous ? (previous.summary as string) : null;
    let responseId = '';
    // One call per part, each merging its events into the summary so far (an empty answer keeps it).
    for (const lines of eventParts(forgotten.filter((e) => e.kind !== 'CondensationSummaryEvent'))) {
      const prompt = summarizationPrompt(summary, lines);
      const response = await this.config.llm.complete(
        {
          messages: [{ role: 'user', content: [{ type: 'text', text: prompt, cache_prompt: false }] }],
          tools: [],
        },
        signal,
      );
      const text = (response.message.content ?? [])
        .map((c) => ('text' in c ? c.text : ''))
        .join('')
        .trim();
      summary = text || summary;
      responseId = response.id;
    }
    return {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'environment',
      forgotten_event_ids: forgotten.map((e) => e.id),
      summary: summary || null,
      summary_offset: summary ? range.start : null,
      llm_response_id: responseId,
      kind: 'Condensation',
    } as AnyEvent;
  }
}

/**
 * The part of the view to forget, [start, end), or null. It starts after the first `keepFirst` events
 * (never before the system prompt's end) and leaves about half of the target size at the end: half of
 * `maxSize` for a size condensation, half of the current view for a request or a token overflow, and
 * never less than the newest event. Both ends move to the nearest cut that splits no tool batch: the
 * end moves back first (keeping more), forward only when moving back would forget nothing.
 */
export function planForgetting(
  entries: readonly Entry[],
  config: Pick<CondenserConfig, 'maxSize' | 'keepFirst'>,
  reason: CondensationReason,
): { start: number; end: number } | null {
  const n = entries.length;
  const safe = safeCuts(entries);
  let start = Math.max(config.keepFirst, entries[0]?.kind === 'SystemPromptEvent' ? 1 : 0);
  while (start < n && !safe[start]) start++;
  if (start >= n) return null;
  const target = reason === 'size' ? Math.floor(config.maxSize / 2) : Math.floor(n / 2);
  // At least the newest event stays as it is (usually the latest request or result).
  const tail = Math.max(1, target - start - 1);
  const wanted = n - tail;
  if (wanted <= start) return null;
  let end = wanted;
  while (end > start && !safe[end]) end--;
  if (end === start) {
    end = wanted;
    while (end < n && !safe[end]) end++;
    if (end >= n) return null;
  }
  // Forgetting only an earlier summary would just replace it with a summary of nothing.
  const real = entries.slice(start, end).some((e) => e.kind !== 'CondensationSummaryEvent');
  return real ? { start, end } : null;
}
