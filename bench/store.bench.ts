// Event append rate (batches of 1 and of 100) on a real SQLite file.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteStore } from '../src/store/index.js';
import { conversationRecord } from '../test/support/records.js';
import { tempDir } from '../test/support/server.js';
import { record } from './lib.js';
import { syntheticEvent } from './synthetic.js';

export async function benchAppend(): Promise<void> {
  const dir = tempDir('agentd-bench-');
  const store = openSqliteStore({ path: join(dir, 'agentd.db') });
  try {
    for (const batch of [1, 100]) {
      const conversation = randomUUID();
      await store.conversations.create(conversationRecord({ id: conversation }));
      const total = batch === 1 ? 20_000 : 100_000;
      const batches = Array.from({ length: total / batch }, (_, b) =>
        Array.from({ length: batch }, (_, i) => syntheticEvent(b * batch + i)),
      );
      const t = performance.now();
      for (const events of batches) await store.events.append(conversation, events);
      const seconds = (performance.now() - t) / 1000;
      const rate = total / seconds;
      record({
        name: `event append, batches of ${batch}`,
        value: `${Math.round(rate).toLocaleString('en')} events/s`,
        goal: '≥ 20,000 events/s',
        met: rate >= 20_000,
      });
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
