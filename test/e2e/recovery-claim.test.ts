// Start-up recovery can be scoped (AgentdOptions.recoveryClaim): with a store several replicas
// share, a replica marks cut off only the running conversations it claims, never one another live
// replica runs. Here on SQLite, with records left `running` as by a stopped server.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { conversationRecord } from '../support/records.js';
import { startServer, tempDir } from '../support/server.js';

describe('start-up recovery with a claim', () => {
  it('marks only the claimed running conversations cut off', async () => {
    const dataDir = tempDir('agentd-claim-');
    const store = openSqliteStore({ path: join(dataDir, 'agentd.db') });
    const mine = conversationRecord({ executionStatus: 'running' });
    const theirs = conversationRecord({ executionStatus: 'running' });
    await store.conversations.create(mine);
    await store.conversations.create(theirs);
    await store.close();

    const asked: string[] = [];
    const server = await startServer({
      dataDir,
      recoveryClaim: async (record) => {
        asked.push(record.id);
        return record.id === mine.id;
      },
    });
    try {
      expect(asked.sort()).toEqual([mine.id, theirs.id].sort());
      expect((await server.store.conversations.get(mine.id))?.executionStatus).toBe('error');
      expect((await server.store.conversations.get(theirs.id))?.executionStatus).toBe('running');
      const kinds = async (id: string) => (await server.store.events.after(id, 0, 10)).map((e) => e.kind);
      expect(await kinds(mine.id)).toContain('ConversationErrorEvent');
      expect(await kinds(theirs.id)).toEqual([]);
    } finally {
      await server.close({ remove: true });
    }
  });
});
