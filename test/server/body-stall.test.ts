// A request body that stops arriving is answered 408 {detail} and its connection closed, after the
// stall limit (short here); a body that keeps arriving, however slowly, and a handler that takes
// longer than the limit once its body is in, are not cut.
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

const STALL_MS = 300;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ bodyStallMs: STALL_MS });
});
afterAll(() => server.close({ remove: true }));

/** Sends `head`, then `parts` one by one `gapMs` apart; resolves with all the server sent once it closed. */
async function exchange(head: string, parts: string[], gapMs: number): Promise<string> {
  const socket = createConnection(Number(new URL(server.url).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk.toString('utf8');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  for (const part of parts) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    if (!socket.destroyed) socket.write(part);
  }
  await closed; // the server closes it (Connection: close)
  return answer;
}

const request = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Session-API-Key: ${server.key}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;

describe('a request body that stops arriving', () => {
  it('is a 408 {detail} once it has been silent past the limit, and nothing is stored', async () => {
    const body = JSON.stringify({ email: 'stalled@example.com' });
    const before = await (await api(server, '/api/settings')).json();
    // Half the body, then silence for three times the limit.
    const answer = await exchange(request('/api/settings', body) + body.slice(0, 10), [''], STALL_MS * 3);
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      detail: 'The request took too long to arrive',
    });
    expect(await (await api(server, '/api/settings')).json()).toEqual(before);
  });

  it('is a 408 on a kept-alive connection too, after an answer to an earlier request on it', async () => {
    const first = `GET /api/settings HTTP/1.1\r\nHost: x\r\nX-Session-API-Key: ${server.key}\r\n\r\n`;
    const body = JSON.stringify({ email: 'stalled@example.com' });
    const answer = await exchange(
      first + request('/api/settings', body) + body.slice(0, 10),
      [''],
      STALL_MS * 3,
    );
    const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 408]);
  });

  it('is not cut while it keeps arriving, however slowly', async () => {
    const body = JSON.stringify({ email: 'slow@example.com' });
    const parts = body.match(/.{1,3}/g) ?? [];
    // Past the limit in all, each gap within it.
    const answer = await exchange(request('/api/settings', body), parts, STALL_MS / 3);
    expect(parts.length * (STALL_MS / 3)).toBeGreaterThan(STALL_MS * 2);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('does not limit a handler that runs longer than the limit once the body is in', async () => {
    const body = JSON.stringify({ command: `sleep ${(STALL_MS * 4) / 1000}; echo slept` });
    const answer = await exchange(request('/api/bash/execute_bash_command', body) + body, [], 0);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('slept');
  });
});
