// WebSocket fan-out: one live event to 1,000 subscribers (time from append to the last subscriber's
// receipt). Replay to a client is binary.ts's row: the real binary, events made through the API.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startServer } from '../test/support/server.js';
import { ms, percentile, record } from './lib.js';
import { benchConversation, syntheticEvent } from './synthetic.js';

export async function benchFanOut(): Promise<void> {
  const subscribers = 1000;
  const server = await startServer({ sockets: { maxSubscribers: subscribers } });
  const conversation = await benchConversation(server);
  const url = `${server.url.replace('http', 'ws')}/sockets/events/${conversation}?session_api_key=${server.key}`;
  const worker = new Worker(new URL('./fanout-worker.mjs', import.meta.url), {
    workerData: { url, count: subscribers },
  });
  const messages: { ready?: boolean; round?: number; at?: number }[] = [];
  let wake: (() => void) | null = null;
  worker.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const next = async () => {
    while (messages.length === 0) await new Promise<void>((r) => (wake = r));
    return messages.shift()!;
  };
  await next(); // ready
  await new Promise((r) => setTimeout(r, 300));
  const latencies: number[] = [];
  for (let round = 0; round < 60; round++) {
    const started = performance.timeOrigin + performance.now();
    await server.log.append(conversation, [syntheticEvent(round * 3 + 2)]);
    const done = await next();
    if (round >= 10) latencies.push(done.at! - started); // the first rounds warm up
  }
  latencies.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  record({
    name: `fan-out of one event to ${subscribers} WebSocket subscribers, p50 / p99`,
    value: `${ms(percentile(latencies, 50))} / ${ms(p99)}`,
    goal: '< 20 ms p99',
    met: p99 < 20,
  });
  worker.postMessage('close');
  await new Promise((r) => worker.once('exit', r));
  await server.close({ remove: true });
}
