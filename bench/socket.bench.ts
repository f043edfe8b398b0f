// WebSocket figures: replay of 10k events to one client, and fan-out of live events to 1,000
// subscribers (time from append to the last subscriber's receipt).
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { startServer } from '../test/support/server.js';
import { ms, percentile, record } from './lib.js';
import { benchConversation, syntheticEvent } from './synthetic.js';

export async function benchReplay(): Promise<void> {
  const server = await startServer();
  const conversation = await benchConversation(server);
  const total = 10_000;
  for (let b = 0; b < total / 1000; b++) {
    await server.store.events.append(
      conversation,
      Array.from({ length: 1000 }, (_, i) => syntheticEvent(b * 1000 + i)),
    );
  }
  const url = `${server.url.replace('http', 'ws')}/sockets/events/${conversation}?session_api_key=${server.key}&after_seq=0`;
  const times: number[] = [];
  for (let run = 0; run < 5; run++) {
    const t = performance.now();
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      let received = 0;
      ws.on('message', () => {
        received++;
        if (received === total + 1) resolve(); // + the full_state frame
      });
      ws.once('error', reject);
    });
    times.push(performance.now() - t);
    ws.close();
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  record({
    name: 'replay 10k events to a WebSocket client (connect to last frame), p50',
    value: ms(p50),
    goal: '< 100 ms',
    met: p50 < 100,
  });
  await server.close({ remove: true });
}

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
