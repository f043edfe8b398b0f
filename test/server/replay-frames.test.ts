// Replay over /sockets/events writes each page of stored events as ready-made WebSocket frames in
// one socket write: a real client must read every frame whole, in order, byte for byte the stored
// text (or agentd's {"seq","event"} envelope), whatever the frame's length field size and the script.
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { wsUrl } from '../support/ws.js';

const agent = {
  kind: 'Agent',
  llm: { model: 'openai/never-called', api_key: 'sk-unused', base_url: 'http://127.0.0.1:9/v1' },
};

/** Text frames of a replay, raw, until `count` have arrived (the full_state first). */
function frames(url: string, count: number): Promise<string[]> {
  const socket = new WebSocket(url);
  const got: string[] = [];
  return new Promise((resolve, reject) => {
    socket.on('message', (data, isBinary) => {
      if (isBinary) return reject(new Error('a binary frame'));
      got.push(data.toString('utf8'));
      if (got.length === count) {
        socket.close();
        resolve(got);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed after ${got.length} of ${count} frames`)));
  });
}

describe('replay frames', () => {
  let server: TestServer;
  let id: string;
  /** Every stored event's text, in sequence order. */
  let stored: string[];

  beforeAll(async () => {
    server = await startServer({ keys: ['k'] });
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent, workspace: { working_dir: tempDir() } }),
    });
    id = ((await res.json()) as { id: string }).id;
    // Payloads under 126 bytes, up to 64 KiB and above (the three header sizes), in several scripts.
    for (const text of ['hi', 'é…日本🙂'.repeat(40), `x${'ü🙂'.repeat(20_000)}`]) {
      const sent = await api(server, `/api/conversations/${id}/events`, {
        method: 'POST',
        body: JSON.stringify({ role: 'user', content: [{ type: 'text', text }], run: false }),
      });
      expect(sent.status).toBe(200);
    }
    // More than a replay page (500) behind them.
    await server.store.events.append(
      id,
      Array.from({ length: 1200 }, (_, i) => ({
        id: randomUUID(),
        timestamp: `2026-11-23T10:00:00.${String(i).padStart(6, '0')}`,
        source: 'user',
        kind: 'PauseEvent',
      })),
    );
    stored = [];
    for (let after = 0; ; ) {
      const page = await server.store.events.after(id, after, 1000);
      if (page.length === 0) break;
      stored.push(...page.map((e) => e.json));
      after = page[page.length - 1]!.seq;
    }
  });
  afterAll(() => server.close({ remove: true }));

  it('resend_all: every stored event, in order, exactly as stored', async () => {
    const url = wsUrl(server.url, `/sockets/events/${id}?session_api_key=k&resend_all=true`);
    // Two readers at once: pages of both go through the shared encoding buffer.
    const [got, other] = await Promise.all([frames(url, stored.length + 1), frames(url, stored.length + 1)]);
    expect(other.slice(1)).toEqual(stored);
    expect(JSON.parse(got[0]!)).toMatchObject({ key: 'full_state' });
    expect(got.slice(1)).toEqual(stored);
    expect(Math.max(...got.map((f) => Buffer.byteLength(f)))).toBeGreaterThan(65_535);
  });

  it('after_seq: the envelope with each sequence number, exactly after the cursor, then live', async () => {
    const after = 2;
    const url = wsUrl(server.url, `/sockets/events/${id}?session_api_key=k&after_seq=${after}`);
    const replayed = stored.slice(after);
    // A message (a MessageEvent and a state update) sent while the replay may be under way: its
    // events come after the replay, each once, with the next sequence numbers.
    const got = frames(url, replayed.length + 3);
    const sent = api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'live' }], run: false }),
    });
    const all = await got;
    expect((await sent).status).toBe(200);
    expect(JSON.parse(all[0]!)).toMatchObject({ seq: null, event: { key: 'full_state' } });
    expect(all.slice(1, 1 + replayed.length)).toEqual(
      replayed.map((json, i) => `{"seq":${after + i + 1},"event":${json}}`),
    );
    const live = all
      .slice(1 + replayed.length)
      .map((f) => JSON.parse(f) as { seq: number; event: { kind: string } });
    expect(live.map((f) => f.seq)).toEqual([stored.length + 1, stored.length + 2]);
    expect(live[0]!.event.kind).toBe('MessageEvent');
  });
});

describe('replay to a reader that stops reading', () => {
  const bound = 64 * 1024;
  let server: TestServer;
  afterAll(() => server.close({ remove: true }));

  // A liveness guard: the earlier 1 ms polling passed this too. It fails if the wait for the socket's
  // 'drain' never ends or loses a frame; what the wait saves (a stalled reader's CPU) is the bench's
  // row (bin-writes), not this test's.
  it('holds the next page until the socket drains, then sends every frame, in order', async () => {
    server = await startServer({ keys: ['k'], sockets: { maxBufferedBytes: bound } });
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent, workspace: { working_dir: tempDir() } }),
    });
    const id = ((await res.json()) as { id: string }).id;
    // ~20 MB of events: more than the kernel's buffers on both ends of a loopback connection hold,
    // so the server's own queue fills while the reader is paused.
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 20; i++) {
      await server.store.events.append(
        id,
        Array.from({ length: 1000 }, (_, j) => ({
          id: randomUUID(),
          timestamp: `2026-11-23T10:00:00.${String(i * 1000 + j).padStart(6, '0')}`,
          source: 'user',
          kind: 'PauseEvent',
          filler,
        })),
      );
    }
    const total = await server.store.events.lastSeq(id);
    // The server's side of the connection (what ws's bufferedAmount counts: its queued bytes).
    const upgraded = new Promise<Duplex>((resolve) =>
      server.app.server.once('upgrade', (_req, raw) => resolve(raw)),
    );
    const socket = new WebSocket(wsUrl(server.url, `/sockets/events/${id}?session_api_key=k&after_seq=0`));
    const seqs: number[] = [];
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    const done = new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        const seq = (JSON.parse(data.toString('utf8')) as { seq: number | null }).seq;
        if (seq !== null) seqs.push(seq);
        if (seqs.length === total) resolve();
      });
      socket.once('error', reject);
    });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.pause();
    // Stalled with more than half its bound queued, the server waits for the reader.
    const peer = await upgraded;
    while (peer.writableLength <= bound / 2) await new Promise((r) => setTimeout(r, 10));
    socket.resume();
    await Promise.race([done, closed.then((code) => Promise.reject(new Error(`closed ${code}`)))]);
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    socket.close();
  });
});
