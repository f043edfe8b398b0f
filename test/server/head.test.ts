// HEAD requests, answered by the GET routes (src/server/head.ts): the GET's status and headers, no
// body, on a connection that stays usable; the key is checked as for the GET.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

/** Writes `text` on one connection and reads until `until` says enough came (or it closes). */
function exchange(text: string, until: (received: string) => boolean): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (until(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('a HEAD request', () => {
  it("gets the GET's headers and no body, and the connection goes on with the next request", async () => {
    const request = (method: string) => `${method} /health HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    const received = await exchange(request('HEAD') + request('GET'), (r) => r.endsWith('{"status":"ok"}'));
    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    const [head = '', get = ''] = answers;
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\ncontent-length: 15\r\n/i);
    expect(head.endsWith('\r\n\r\n')).toBe(true); // the headers, then straight to the next answer
    expect(get).toMatch(/\r\ncontent-length: 15\r\n/i);
    expect(get.endsWith('\r\n\r\n{"status":"ok"}')).toBe(true);
  });

  it('needs the key where the GET does, and then answers its length', async () => {
    const path = '/api/conversations/search?limit=1';
    const keyless = await rawRequest(server.url, { method: 'HEAD', path });
    expect({ status: keyless.status, body: keyless.text }).toEqual({ status: 401, body: '' });
    const headers = { 'X-Session-API-Key': server.key };
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD', headers });
    const get = await rawRequest(server.url, { method: 'GET', path, headers });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
  });

  it('is a 404 where no GET route is', async () => {
    const res = await rawRequest(server.url, { method: 'HEAD', path: '/no-such-route' });
    expect({ status: res.status, body: res.text }).toEqual({ status: 404, body: '' });
  });
});
