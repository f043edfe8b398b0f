// The memory of 10k idle conversations (conversations that exist but are not running hold no runtime
// in memory). The binary's cold start is binary.ts's `bin-start` row.
import { rmSync } from 'node:fs';
import { startServer, tempDir } from '../test/support/server.js';
import { mb, record } from './lib.js';

export async function benchIdleMemory(): Promise<void> {
  const server = await startServer();
  const count = 10_000;
  const workdir = tempDir('agentd-bench-ws-');
  const request = {
    agent: {
      kind: 'Agent' as const,
      llm: { model: 'openai/idle', api_key: 'sk-idle', base_url: 'http://127.0.0.1:9/v1' },
    },
    workspace: { working_dir: workdir },
  };
  const userId = (await import('../src/settings/index.js')).userIdForSessionKey(server.key);
  global.gc?.();
  const before = process.memoryUsage();
  for (let i = 0; i < count; i++) await server.conversations.start(userId, request);
  global.gc?.();
  const after = process.memoryUsage();
  const perConversation = (after.heapUsed - before.heapUsed) / count;
  record({
    name: `idle conversations: heap per conversation (${count / 1000}k)`,
    value: `${(perConversation / 1024).toFixed(2)} KB`,
    goal: '< 20 KB',
    met: perConversation < 20 * 1024,
  });
  record({ name: `RSS growth for ${count / 1000}k idle conversations`, value: mb(after.rss - before.rss) });
  await server.close({ remove: true });
  rmSync(workdir, { recursive: true, force: true });
}
