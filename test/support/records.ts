// A bare conversation record, for tests and benchmarks that write to the store directly.
import { randomUUID } from 'node:crypto';
import type { ConversationRecord } from '../../src/store/index.js';

export function conversationRecord(overrides: Partial<ConversationRecord> = {}): ConversationRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    ownerId: 'local',
    title: null,
    tags: {},
    executionStatus: 'idle',
    state: {},
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}
