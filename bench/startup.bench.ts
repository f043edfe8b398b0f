// Cold start: spawn the real binary and time until /ready answers 200; then the memory of 10k idle
// conversations (conversations that exist but are not running hold no runtime in memory).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startServer, tempDir } from '../test/support/server.js';
import { mb, ms, percentile, record } from './lib.js';

async function coldStartOnce(): Promise<number> {
  const dataDir = tempDir('agentd-bench-start-');
  const t = performance.now();
  const proc = spawn(
    process.execPath,
    ['dist/cli.js', 'serve', '--no-auth', '--port', '0', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/ready`).catch(() => null);
    if (res?.status === 200) break;
  }
  const elapsed = performance.now() - t;
  proc.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  return elapsed;
}

export async function benchColdStart(): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await coldStartOnce());
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  record({
    name: 'cold start to /ready (spawn to 200), p50',
    value: ms(p50),
    goal: '< 200 ms',
    met: p50 < 200,
  });
}

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
