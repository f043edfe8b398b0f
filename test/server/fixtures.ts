// Builders for conversations and events used by the server tests (plain wire JSON).
import { randomUUID } from 'node:crypto';
import type { Store } from '../../src/store/index.js';
import { conversationRecord } from '../support/records.js';

export async function createConversation(
  store: Store,
  ownerId: string,
  id: string = randomUUID(),
): Promise<string> {
  await store.conversations.create(conversationRecord({ id, ownerId }));
  return id;
}

let tick = 0;
export function messageEvent(text: string, source: 'user' | 'agent' = 'user') {
  tick += 1;
  return {
    id: randomUUID(),
    timestamp: `2026-11-22T10:00:00.${String(tick).padStart(6, '0')}`,
    source,
    llm_message: {
      role: source === 'user' ? 'user' : 'assistant',
      content: [{ type: 'text', text, cache_prompt: false }],
    },
    activated_skills: [],
    extended_content: [],
    kind: 'MessageEvent',
  };
}

export function pauseEvent() {
  tick += 1;
  return {
    id: randomUUID(),
    timestamp: `2026-11-22T10:00:01.${String(tick).padStart(6, '0')}`,
    source: 'user',
    kind: 'PauseEvent',
  };
}
