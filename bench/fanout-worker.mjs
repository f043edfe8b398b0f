// Fan-out clients in their own thread (own event loop), so the server's figure is not inflated by
// 1,000 clients parsing in its loop. Reports, per round, when the last subscriber got the event.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { url, count } = workerData;
const now = () => performance.timeOrigin + performance.now();
let received = 0;
let round = 0;
const sockets = [];

function open() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let first = true;
    ws.on('message', () => {
      if (first) {
        first = false; // the full_state snapshot
        return;
      }
      received++;
      if (received === count) {
        received = 0;
        parentPort.postMessage({ round: round++, at: now() });
      }
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

for (let i = 0; i < count; i += 50)
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, open))));
parentPort.postMessage({ ready: true });
parentPort.on('message', (m) => {
  if (m === 'close') {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  }
});
