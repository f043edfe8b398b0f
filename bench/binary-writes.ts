// Long work on the 100k-event conversation, on the real binary: fork (all of it, and from its middle
// event) and delete, each timed to its answer with /health probed meanwhile on a connection of its
// own (as a load balancer's checker): the longest probe round trip is how long the server stopped
// answering anyone else. A fork's peak RSS is read from /proc (VmHWM, reset first). Then what readers
// that stop reading mid-replay cost the server while they stay stalled.
import { join } from 'node:path';
import WebSocket from 'ws';
import { openSqliteStore } from '../src/store/index.js';
import { rawRequest } from '../test/support/http.js';
import { conversationOf } from './binary.js';
import {
  auth,
  type Binary,
  KEY,
  mainThreadCpuMicros,
  post,
  rssFromHere,
  startBinary,
  whileProbing,
} from './binary-lib.js';
import { mb, ms, percentileOf, record } from './lib.js';

interface Timed<T> {
  ms: number;
  /** The longest /health round trip while the request ran. */
  health: number;
  value: T;
}

/** POST …/fork; the fork's id and the server's RSS before and at its peak meanwhile. */
async function fork(b: Binary, id: string, body: Record<string, unknown>) {
  const rss = rssFromHere(b.pid);
  const res = await post(b.url, `/api/conversations/${id}/fork`, body);
  if (res.status !== 201) throw new Error(`fork answered ${res.status}: ${JSON.stringify(res.json)}`);
  return { id: res.json.id, before: rss.before, peak: rss.peak() };
}

async function remove(b: Binary, id: string): Promise<void> {
  const res = await rawRequest(b.url, { method: 'DELETE', path: `/api/conversations/${id}`, headers: auth });
  if (res.status !== 200) throw new Error(`delete answered ${res.status}: ${res.text}`);
}

const ROUNDS = 3;
const STALLED = 10;

/** The server's main-thread CPU, % of a core over 5 s, while `STALLED` readers sit paused mid-replay. */
async function stalledReaders(b: Binary, id: string): Promise<number> {
  const url = `${b.url.replace('http', 'ws')}/sockets/events/${id}?session_api_key=${KEY}&resend_all=true`;
  const sockets = await Promise.all(
    Array.from({ length: STALLED }, async () => {
      const ws = new WebSocket(url);
      await new Promise((resolve, reject) => {
        ws.once('message', resolve); // the full_state: the replay has begun
        ws.once('error', reject);
      });
      ws.pause();
      return ws;
    }),
  );
  await new Promise((r) => setTimeout(r, 1000)); // every buffer on the way full
  const before = mainThreadCpuMicros(b.pid);
  await new Promise((r) => setTimeout(r, 5000));
  const percent = ((mainThreadCpuMicros(b.pid) - before) / 5e6) * 100;
  for (const ws of sockets) ws.terminate();
  return percent;
}

export async function benchWrites(): Promise<void> {
  const { dir, id } = await conversationOf(100_000, 10_000);
  const store = openSqliteStore({ path: join(dir, 'agentd.db') });
  const middle = (await store.events.after(id, 50_000, 1))[0]!.id;
  await store.close();
  const b = await startBinary(dir);
  const whole: Timed<Awaited<ReturnType<typeof fork>>>[] = [];
  const fromMiddle: Timed<unknown>[] = [];
  const deletes: Timed<unknown>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const all = await whileProbing(b.url, () => fork(b, id, {}));
    whole.push(all);
    const half = await whileProbing(b.url, () => fork(b, id, { from_event_id: middle }));
    fromMiddle.push(half);
    // A copy of the whole source: a 100k-event conversation, deleted.
    deletes.push(await whileProbing(b.url, () => remove(b, all.value.id)));
    await remove(b, half.value.id);
  }
  const stalled = await stalledReaders(b, id);
  await b.stop();
  const p50 = (runs: Timed<unknown>[], pick: (r: Timed<unknown>) => number) =>
    percentileOf(runs.map(pick), 50);
  const row = (name: string, runs: Timed<unknown>[]) =>
    record({
      name: `binary: ${name} of the 100k-event conversation, p50 of ${ROUNDS}; longest /health meanwhile (worst)`,
      value: `${ms(p50(runs, (r) => r.ms))}; ${ms(Math.max(...runs.map((r) => r.health)))}`,
    });
  row('fork', whole);
  row('fork from its middle event', fromMiddle);
  row('delete (a fork)', deletes);
  const peak = Math.max(...whole.map((r) => r.value.peak));
  record({
    name: 'binary: fork of the 100k-event conversation: server RSS before the first → highest peak of the runs',
    value: `${mb(whole[0]!.value.before)} → ${mb(peak)}`,
  });
  record({
    name: `binary: ${STALLED} readers stalled mid-replay of the 100k-event conversation: server main-thread CPU`,
    value: `${stalled.toFixed(1)}% of a core`,
  });
}
