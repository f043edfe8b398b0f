// CORS: OpenHands' web UI, served on the control plane's origin, calls each sandbox's agent server
// (another origin) from the browser. The preflight needs no key and names what is allowed, only for
// the configured origins; real requests still need the key, and their answers (401 included) carry
// Access-Control-Allow-Origin so the browser can read them. Unconfigured: no CORS at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originsOf, parseCorsOrigins } from '../../src/server/cors.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually, getJson, type Json, postJson } from '../support/v1.js';

const UI = 'http://ui.example:3000';
const OTHER = 'http://evil.example';

/** The browser's preflight for a GET with the session key. */
function preflight(url: string, origin: string, path = '/api/conversations/search'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'x-session-api-key,content-type',
    },
  });
}

describe('an agent server with CORS origins', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['the-key'], controlPlane: false, corsOrigins: [UI] });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers a preflight from an allowed origin with 204 and the allow headers, without a key', async () => {
    const res = await preflight(server.url, UI);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const methods = res.headers.get('access-control-allow-methods') ?? '';
    for (const m of ['GET', 'POST', 'PATCH', 'DELETE']) expect(methods).toContain(m);
    const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(headers).toContain('x-session-api-key');
    expect(headers).toContain('content-type');
    expect(res.headers.get('vary')).toMatch(/origin/i);
  });

  it('answers preflights for any path, parameterized and unknown ones included', async () => {
    for (const path of ['/api/conversations/00000000-0000-4000-8000-000000000000/events/search', '/alive']) {
      const res = await preflight(server.url, UI, path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe(UI);
    }
  });

  it('gives another origin no Access-Control-Allow-Origin', async () => {
    for (const origin of [OTHER, 'null', 'http://ui.example:3001']) {
      const pre = await preflight(server.url, origin);
      expect(pre.headers.get('access-control-allow-origin'), origin).toBeNull();
      const res = await api(server, '/api/conversations/count', { headers: { Origin: origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('still needs the key for a real request, and its 401 is readable by the allowed origin', async () => {
    const denied = await api(server, '/api/conversations/count', { key: null, headers: { Origin: UI } });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ detail: 'Unauthorized' });
    expect(denied.headers.get('access-control-allow-origin')).toBe(UI);
    const wrong = await api(server, '/api/conversations/count', { key: 'wrong', headers: { Origin: UI } });
    expect(wrong.status).toBe(401);
    const ok = await api(server, '/api/conversations/count', { headers: { Origin: UI } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toBe(0);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('runs no handler for a preflight: a POST preflight starts nothing', async () => {
    const res = await fetch(`${server.url}/api/conversations`, {
      method: 'OPTIONS',
      headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await (await api(server, '/api/conversations/count')).json()).toBe(0);
  });
});

describe('a server without CORS origins (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['the-key'], controlPlane: false });
  });
  afterAll(() => server.close({ remove: true }));

  it('is same-origin only: no preflight route, no CORS headers', async () => {
    const pre = await preflight(server.url, UI);
    expect(pre.status).toBe(404);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await api(server, '/api/conversations/count', { headers: { Origin: UI } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(server.app.routeTable.some((r) => r.method === 'OPTIONS')).toBe(false);
  });
});

describe('AGENTD_CORS_ORIGINS', () => {
  it('is a comma-separated list; blanks and trailing slashes go', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins('')).toEqual([]);
    expect(parseCorsOrigins(' http://a.example:1/ ,,https://b.example ')).toEqual([
      'http://a.example:1',
      'https://b.example',
    ]);
  });

  it("serve's own origin, passed to its sandboxes: both loopback names, none for an unknown port", () => {
    expect(originsOf('127.0.0.1', 8000)).toEqual(['http://localhost:8000', 'http://127.0.0.1:8000']);
    expect(originsOf('10.0.0.5', 3000)).toEqual(['http://10.0.0.5:3000']);
    expect(originsOf('fd00::1', 3000)).toEqual(['http://[fd00::1]:3000']);
    expect(originsOf('127.0.0.1', 0)).toEqual([]);
  });
});

describe('a V1 sandbox started by the control plane', () => {
  const CONTROL_PLANE = 'http://127.0.0.1:8000';
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      keys: ['the-key'],
      // The process provider keeps it light; `serve` passes its own origin(s) the same way.
      controlPlane: {
        warmSpare: false,
        sandboxProvider: 'process',
        sandboxCorsOrigins: [CONTROL_PLANE, UI],
      },
    });
  });
  afterAll(() => server.close({ remove: true }));

  it("answers a preflight from the control plane's origin; its API still needs the sandbox key", async () => {
    const created = await postJson(server, '/api/v1/sandboxes');
    const sandbox = await eventually(async () => {
      const [current] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${created.id as string}`);
      return current?.status === 'RUNNING' ? current : undefined;
    }, 30_000);
    const agentUrl = (sandbox.exposed_urls as Json[])[0]!.url as string;
    const agent = { url: agentUrl, key: sandbox.session_api_key as string };

    for (const origin of [CONTROL_PLANE, UI]) {
      const res = await preflight(agentUrl, origin);
      expect(res.status, origin).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
    }
    expect((await preflight(agentUrl, OTHER)).headers.get('access-control-allow-origin')).toBeNull();

    const denied = await api(agent, '/api/conversations/count', {
      key: null,
      headers: { Origin: CONTROL_PLANE },
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(CONTROL_PLANE);
    const ok = await api(agent, '/api/conversations/count', { headers: { Origin: CONTROL_PLANE } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(CONTROL_PLANE);

    // The control plane itself has no CORS configured: same origin only.
    const own = await preflight(server.url, CONTROL_PLANE, '/api/v1/sandboxes/search');
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
  }, 60_000);
});
