// Two agentd replicas (real processes) on one PostgreSQL and one Redis: how long an event appended
// on A takes to reach a WebSocket client of B, and how long after a kill -9 of the replica running a
// conversation another one takes it over. Skipped without both engines (AGENTD_TEST_DATABASE_URL,
// AGENTD_TEST_REDIS_URL, as `npm test` starts them).
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { ScriptedLLM } from '../src/llm/index.js';
import { type RunningCli, runCli } from '../test/support/cli.js';
import { createTestDatabase } from '../test/support/engines.js';
import { tempDir } from '../test/support/server.js';
import { ms, percentile, record } from './lib.js';

const KEY = 'bench-replicas-key';
const LEASE_SECONDS = 7; // the default

async function replica(name: string, databaseUrl: string, redisUrl: string): Promise<RunningCli> {
  return runCli(
    ['serve', '--port', '0', '--data-dir', tempDir(`agentd-bench-${name}-`), '--log-level', 'warn'],
    {
      env: {
        OH_SESSION_API_KEYS_0: KEY,
        OH_SECRET_KEY: 'bench secret key',
        AGENTD_DATABASE_URL: databaseUrl,
        AGENTD_REDIS_URL: redisUrl,
        AGENTD_LEASE_SECONDS: String(LEASE_SECONDS),
        AGENTD_SANDBOX_PROVIDER: 'process',
      },
    },
  );
}

const call = (server: RunningCli, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Session-API-Key': KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function startConversation(server: RunningCli, llmUrl: string, llmKey: string): Promise<string> {
  const response = await call(server, '/api/conversations', {
    agent: {
      llm: { model: 'openai/scripted', api_key: llmKey, base_url: llmUrl, num_retries: 0 },
      tools: [{ name: 'terminal' }],
    },
    workspace: { working_dir: tempDir('agentd-bench-ws-') },
  });
  return ((await response.json()) as { id: string }).id;
}

/** A WebSocket client calling `onFrame` with each parsed frame. */
async function watch(
  server: RunningCli,
  id: string,
  onFrame: (frame: { event: Record<string, unknown> }) => void,
) {
  const socket = new WebSocket(
    `${server.url.replace('http', 'ws')}/sockets/events/${id}?after_seq=0&session_api_key=${KEY}`,
  );
  socket.on('message', (data) => onFrame(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

export async function benchReplicas(): Promise<void> {
  const server = process.env.AGENTD_TEST_DATABASE_URL;
  const redisUrl = process.env.AGENTD_TEST_REDIS_URL;
  if (!server || !redisUrl) {
    const why = 'skipped (needs AGENTD_TEST_DATABASE_URL and AGENTD_TEST_REDIS_URL)';
    record({ name: 'cross-replica delivery', value: why });
    record({ name: 'lease takeover after kill -9', value: why });
    return;
  }
  const db = await createTestDatabase();
  const llm = new ScriptedLLM();
  await llm.start();
  const a = await replica('a', db.url, redisUrl);
  const b = await replica('b', db.url, redisUrl);
  try {
    // Delivery: a message appended on A (its runtime, its lease), the frame on a client of B.
    const id = await startConversation(a, llm.openaiBaseUrl, 'delivery');
    // The same frame on a client of A (the local path) and of B (through Redis): the difference is
    // what the second replica adds.
    let waiting: { text: string; onA: () => void; onB: () => void } | null = null;
    const onA = await watch(a, id, (frame) => {
      if (waiting && JSON.stringify(frame.event).includes(waiting.text)) waiting.onA();
    });
    const onB = await watch(b, id, (frame) => {
      if (waiting && JSON.stringify(frame.event).includes(waiting.text)) waiting.onB();
    });
    const local: number[] = [];
    const remote: number[] = [];
    for (let i = 0; i < 550; i++) {
      const text = `message ${i}`;
      const t = performance.now();
      let resolveA: () => void = () => {};
      let resolveB: () => void = () => {};
      const atA = new Promise<number>((r) => {
        resolveA = () => r(performance.now() - t);
      });
      const atB = new Promise<number>((r) => {
        resolveB = () => r(performance.now() - t);
      });
      waiting = { text, onA: resolveA, onB: resolveB };
      await call(a, `/api/conversations/${id}/events`, { role: 'user', content: [{ type: 'text', text }] });
      const [la, lb] = await Promise.all([atA, atB]);
      if (i >= 50) {
        local.push(la);
        remote.push(lb);
      }
    }
    onA.close();
    onB.close();
    local.sort((x, y) => x - y);
    remote.sort((x, y) => x - y);
    record({
      name: 'message POST on A → WS frame on A (one replica), p50 / p99',
      value: `${ms(percentile(local, 50))} / ${ms(percentile(local, 99))}`,
    });
    const p99 = percentile(remote, 99);
    record({
      name: 'cross-replica delivery: message POST on A → WS frame on B, p50 / p99',
      value: `${ms(percentile(remote, 50))} / ${ms(p99)}`,
      goal: 'p99 < 50 ms',
      met: p99 < 50,
    });

    // Takeover: A runs a long command; kill -9; B recovers the conversation (ServerRestarted).
    llm.script('takeover', [{ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 60' } }] }]);
    const long = await startConversation(a, llm.openaiBaseUrl, 'takeover');
    let started: () => void = () => {};
    let recovered: () => void = () => {};
    const actionSeen = new Promise<void>((r) => {
      started = r;
    });
    const recoveredSeen = new Promise<void>((r) => {
      recovered = r;
    });
    const watcher = await watch(b, long, (frame) => {
      if (frame.event.kind === 'ActionEvent') started();
      if (frame.event.code === 'ServerRestarted') recovered();
    });
    await call(a, `/api/conversations/${long}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'run it' }],
      run: true,
    });
    await actionSeen;
    const t = performance.now();
    await a.stop('SIGKILL');
    await recoveredSeen;
    const takeover = (performance.now() - t) / 1000;
    watcher.close();
    record({
      name: `lease takeover after kill -9 (lease ${LEASE_SECONDS} s, the default)`,
      value: `${takeover.toFixed(2)} s`,
      goal: '≤ 10 s',
      met: takeover <= 10,
    });
  } finally {
    await Promise.allSettled([a.stop(), b.stop()]);
    await llm.stop();
    await db.drop();
  }
}
