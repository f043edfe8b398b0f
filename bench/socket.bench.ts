// WebSocket figures: replay of 10k events to one client, and fan-out of live events to 1,000
// subscribers (time from append to the last subscriber's receipt).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { userIdForSessionKey } from '../src/settings/index.js';
import { startServer } from '../test/support/server.js';
import { ms, percentile, record } from './lib.js';
import { conversationRecord, syntheticEvent } from './synthetic.js';

function open(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

export async function benchReplay(): Promise<void> {
  const server = await startServer();
  const conversation = randomUUID();
  await server.store.conversations.create(conversationRecord(conversation, userIdForSessionKey(server.key)));
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
  const conversation = randomUUID();
  await server.store.conversations.create(conversationRecord(conversation, userIdForSessionKey(server.key)));
  const url = `${server.url.replace('http', 'ws')}/sockets/events/${conversation}?session_api_key=${server.key}`;
  const sockets: WebSocket[] = [];
  for (let i = 0; i < subscribers; i += 50) {
    sockets.push(
      ...(await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, () => open(url)))),
    );
  }
  // Let every subscription finish its (empty) replay before measuring.
  await new Promise((r) => setTimeout(r, 500));
  const latencies: number[] = [];
  for (let round = 0; round < 50; round++) {
    const event = syntheticEvent(round * 3 + 2);
    let remaining = subscribers;
    const done = new Promise<void>((resolve) => {
      for (const ws of sockets) {
        ws.once('message', () => {
          remaining--;
          if (remaining === 0) resolve();
        });
      }
    });
    const t = performance.now();
    await server.log.append(conversation, [event]);
    await done;
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  record({
    name: `fan-out of one event to ${subscribers} WebSocket subscribers, p50 / p99`,
    value: `${ms(percentile(latencies, 50))} / ${ms(p99)}`,
    goal: '< 20 ms p99',
    met: p99 < 20,
  });
  for (const ws of sockets) ws.terminate();
  await server.close({ remove: true });
}
