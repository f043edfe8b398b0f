// The searchable text of an event: for a MessageEvent, its content, extended content and reasoning,
// lower-cased once at append so that the body filter is a plain substring test. Other kinds have none.
import { textColumn } from './rows.js';
import type { StorableEvent } from './types.js';

type TextItem = { text?: unknown };
type MessageLike = StorableEvent & {
  llm_message?: { content?: TextItem[]; reasoning_content?: unknown };
  extended_content?: TextItem[];
};

export function messageBody(event: StorableEvent): string | null {
  if (event.kind !== 'MessageEvent') return null;
  const m = event as MessageLike;
  const parts: string[] = [];
  for (const item of m.llm_message?.content ?? []) if (typeof item.text === 'string') parts.push(item.text);
  for (const item of m.extended_content ?? []) if (typeof item.text === 'string') parts.push(item.text);
  if (typeof m.llm_message?.reasoning_content === 'string') parts.push(m.llm_message.reasoning_content);
  return textColumn(parts.join('\n').toLowerCase());
}
