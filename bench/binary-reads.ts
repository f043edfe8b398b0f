// The questions about one end of a long conversation, asked of the real binary on a 100k-event
// conversation (binary.ts's): agent_final_response, POST /navigate to a known and to an unknown event,
// each with the slowest /health answer meanwhile (a SQLite read is synchronous: however long a request
// reads at once, every other request waits), and a start that recovers the conversation left running,
// beside a plain start of the same data folder.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type AnyEvent, newEventId, nowTimestamp } from '../src/events/index.js';
import { openSqliteStore } from '../src/store/index.js';
import { rawRequest } from '../test/support/http.js';
import { conversationOf } from './binary.js';
import { auth, type Binary, healthProbe, rssBytes, rssFromHere, startBinary } from './binary-lib.js';
import { mb, ms, percentileOf, record } from './lib.js';

interface Timed {
  /** p50 of the request, ms. */
  p50: number;
  /** The slowest /health answer while the requests ran, ms. */
  stall: number;
}

/**
 * `request` 5 times (after one more), one at a time, with /health asked every 5 ms meanwhile on a
 * connection of its own, as a load balancer's checker asks. On the shared 2-core machine the slowest
 * /health answer of an idle server is ~10 ms.
 */
async function timedWithHealth(
  url: string,
  request: () => Promise<{ status: number }>,
  status: number,
): Promise<Timed> {
  const probe = healthProbe(url, 5);
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const res = await request();
    if (res.status !== status) throw new Error(`answered ${res.status}, not ${status}`);
    if (i > 0) times.push(performance.now() - t);
    // A pause between two, so that a /health answer waits for one request at most.
    await new Promise((r) => setTimeout(r, 50));
  }
  return { p50: percentileOf(times, 50), stall: Math.max(...(await probe.stop())) };
}

/** The conversation's answers on a fresh server: nothing of it loaded. */
async function answers(b: Binary, id: string, lastId: string) {
  const path = `/api/conversations/${id}`;
  const call = (method: string, route: string, body?: unknown) => () =>
    rawRequest(b.url, {
      method,
      path: `${path}${route}`,
      headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const { before, peak } = rssFromHere(b.pid);
  const final = await timedWithHealth(b.url, call('GET', '/agent_final_response'), 200);
  const rss = peak();
  const unknown = await timedWithHealth(b.url, call('POST', '/navigate', { event_id: newEventId() }), 404);
  // HEAD onto the log's last event: the branch stays the whole log.
  const known = await timedWithHealth(b.url, call('POST', '/navigate', { event_id: lastId }), 200);
  return { final, unknown, known, before, rss };
}

/** Marks the conversation running with an action left unanswered at its end, as a crash leaves it. */
async function leaveRunning(dir: string, id: string): Promise<void> {
  const store = openSqliteStore({ path: join(dir, 'agentd.db') });
  const action = {
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'agent',
    kind: 'ActionEvent',
    tool_name: 'terminal',
    tool_call_id: `call_${newEventId()}`,
    llm_response_id: `resp_${newEventId()}`,
    action: { kind: 'TerminalAction', command: 'sleep 60' },
  } as unknown as AnyEvent;
  await store.events.append(id, [action], { executionStatus: 'running' });
  await store.close();
}

/** spawn → /ready and RSS at /ready, p50 of 3: plain starts and starts that recover `id`, alternated. */
async function starts(dir: string, id: string) {
  const plain: { ready: number; rss: number }[] = [];
  const recovering: { ready: number; rss: number }[] = [];
  for (let i = 0; i < 3; i++) {
    for (const list of [plain, recovering]) {
      if (list === recovering) await leaveRunning(dir, id);
      const b = await startBinary(dir);
      list.push({ ready: b.readyMs, rss: rssBytes(b.pid) });
      await b.stop();
    }
  }
  const p50 = (list: typeof plain) => ({
    ready: percentileOf(
      list.map((s) => s.ready),
      50,
    ),
    rss: percentileOf(
      list.map((s) => s.rss),
      50,
    ),
  });
  return { plain: p50(plain), recovering: p50(recovering) };
}

export async function benchReads(): Promise<void> {
  const { dir, id, lastId } = await conversationOf(100_000, 10_000);
  const b = await startBinary(dir);
  const r = await answers(b, id, lastId);
  await b.stop();
  const s = await starts(dir, id);
  const row = (t: Timed) => `${ms(t.p50)}; /health ${ms(t.stall)}`;
  record({
    name: 'reads: agent_final_response of the 100k-event conversation, none loaded, p50 of 5; slowest /health meanwhile',
    value: `${row(r.final)}; RSS ${mb(r.before)} → peak ${mb(r.rss)}`,
  });
  record({
    name: 'reads: POST /navigate of it to an unknown event (404), p50 of 5; slowest /health',
    value: row(r.unknown),
  });
  record({
    name: 'reads: POST /navigate of it to its last event, p50 of 5; slowest /health',
    value: row(r.known),
  });
  record({
    name: 'reads: start with it left running (recovered) vs plain, spawn → /ready p50 of 3; RSS at /ready',
    value: `${ms(s.recovering.ready)} vs ${ms(s.plain.ready)}; ${mb(s.recovering.rss)} vs ${mb(s.plain.rss)}`,
  });
}
