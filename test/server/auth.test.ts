import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionKeys } from '../../src/server/auth.js';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { api, startServer, type TestServer } from '../support/server.js';

type OpenApi = { paths: Record<string, Record<string, unknown>> };

describe('auth', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['key-a', 'key-b'] });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers 401 {detail:"Unauthorized"} on every /api route without a key or with a wrong key', async () => {
    const doc = (await (await api(server, '/openapi.json', { key: null })).json()) as OpenApi;
    const routes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api'))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
    expect(routes.length).toBeGreaterThan(1);
    for (const { method, path } of routes) {
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      for (const key of [null, 'wrong', 'KEY-A']) {
        const res = await api(server, concrete, { method, key });
        expect(res.status, `${method} ${path} with ${key}`).toBe(401);
        expect(await res.json()).toEqual({ detail: 'Unauthorized' });
      }
    }
  });

  it('accepts any configured key, with the header name in any case', async () => {
    for (const key of ['key-a', 'key-b']) {
      const res = await fetch(`${server.url}/api/settings`, { headers: { 'x-SESSION-api-KEY': key } });
      expect(res.status).toBe(200); // authorized: the defaults, nothing stored yet
    }
  });

  it("takes the key as a bearer token too (OpenHands Cloud's clients), the header's first when both are keys", async () => {
    const settings = (headers: Record<string, string>) => fetch(`${server.url}/api/settings`, { headers });
    expect((await settings({ Authorization: 'Bearer key-a' })).status).toBe(200);
    expect((await settings({ authorization: 'bearer key-b' })).status).toBe(200);
    for (const authorization of ['Bearer wrong', 'Bearer', 'Basic key-a', 'key-a', 'Bearer key-a extra'])
      expect((await settings({ authorization })).status, authorization).toBe(401);
    // The cloud workspace sends a sandbox's key in the header and the user's as the token: the token counts.
    expect(
      (await settings({ 'X-Session-API-Key': 'sandbox-key', Authorization: 'Bearer key-a' })).status,
    ).toBe(200);
    expect((await settings({ 'X-Session-API-Key': 'wrong', Authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    // Both name the same user: what one stores, the other reads.
    const stored = await fetch(`${server.url}/api/settings`, {
      method: 'POST',
      headers: { Authorization: 'Bearer key-b', 'content-type': 'application/json' },
      body: JSON.stringify({ language: 'fr' }),
    });
    expect(stored.status).toBe(200);
    const read = await settings({ 'X-Session-API-Key': 'key-b' });
    expect(((await read.json()) as { language: string }).language).toBe('fr');
    // Two configured keys: the header's names the user.
    const both = await settings({ 'X-Session-API-Key': 'key-a', Authorization: 'Bearer key-b' });
    expect(((await both.json()) as { language: string | null }).language).not.toBe('fr');
  });

  it('leaves health, server info and docs open', async () => {
    for (const path of ['/alive', '/health', '/ready', '/server_info', '/openapi.json', '/docs']) {
      const res = await api(server, path, { key: null });
      expect(res.status, path).toBe(200);
    }
    expect(await (await api(server, '/alive', { key: null })).json()).toEqual({ status: 'ok' });
    expect(await (await api(server, '/health', { key: null })).json()).toEqual({ status: 'ok' });
    expect(await (await api(server, '/ready', { key: null })).json()).toEqual({ status: 'ready' });
    const info = (await (await api(server, '/server_info', { key: null })).json()) as Record<string, unknown>;
    expect(typeof info.uptime).toBe('number');
    expect(typeof info.idle_time).toBe('number');
    expect(Array.isArray(info.usable_tools)).toBe(true);
    expect(info.docs).toBe('/docs');
  });

  it('answers 404 {detail} for unknown routes (the route table is public in /openapi.json)', async () => {
    for (const path of ['/nothing', '/api/nothing-here']) {
      const res = await api(server, path, { key: null });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('names the user of each configured key, no one for any other key, the local user with auth off', () => {
    const keys = new SessionKeys(['key-a', 'key-b']);
    expect(keys.userOf('key-a')).toBe(userIdForSessionKey('key-a'));
    expect(keys.userOf('key-b')).toBe(userIdForSessionKey('key-b'));
    expect(userIdForSessionKey('key-a')).not.toBe(userIdForSessionKey('key-b'));
    for (const other of ['key-c', 'KEY-A', 'key-a ', '', undefined, null])
      expect(keys.userOf(other)).toBeNull();
    expect(new SessionKeys([]).userOf(undefined)).toBe(userIdForSessionKey(null));
  });
});
