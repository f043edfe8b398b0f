// Deny by default, decided per route: every registered route, reached by its raw path and by the
// spellings a router may decode or normalize onto it, answers 401 (protected) or 404 (no such route)
// without a valid key, and never runs its handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/http.js';
import { api, startServer, type TestServer } from '../support/server.js';

const ID = '00000000-0000-4000-8000-000000000000';
const KEYLESS: Record<string, string>[] = [
  {},
  { 'X-Session-API-Key': 'wrong' },
  { 'X-Session-API-Key': 'THE-KEY' },
];
const PUBLIC = ['/alive', '/health', '/ready', '/server_info', '/', '/openapi.json'];

/** A concrete path for a route pattern: parameters get a well-formed id, wildcards a name. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, ID).replace(/\*/g, 'x');
}

const encodeLetter = (c: string) => `%${c.charCodeAt(0).toString(16)}`;

/** The raw path and spellings of it that must not get past the check. */
function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const first = segments[0] ?? '';
  const rest = segments.slice(1).join('/');
  const joinRest = (head: string) => (rest ? `/${head}/${rest}` : `/${head}`);
  const variants = [
    path,
    // Percent-encoded letters, one at a time in the first segment and the whole first segment.
    ...[...first].map((c, i) =>
      /[a-z]/i.test(c) ? joinRest(first.slice(0, i) + encodeLetter(c) + first.slice(i + 1)) : null,
    ),
    joinRest([...first].map(encodeLetter).join('')),
    path.replace(/[a-z]/gi, encodeLetter),
    `/${path}`,
    path.replace('/', '//').replace(/\/([^/]*)$/, '//$1'),
    `/.${path}`,
    path.replace(/\/([^/]*)$/, '/./$1'),
    path.replace(/\/([^/]*)$/, '%2f$1'),
    path.replace(/\/([^/]*)$/, '%2F$1'),
    `${path}/`,
    path.toUpperCase(),
    joinRest(first.toUpperCase()),
  ];
  return [...new Set(variants.filter((v): v is string => v !== null))];
}

describe('route access', () => {
  let server: TestServer;
  beforeAll(async () => {
    // With CORS on, so its preflight route (`OPTIONS *`) is in the table too; with the control plane,
    // so the routes a sandbox's own key opens are walked too.
    server = await startServer({
      keys: ['the-key'],
      corsOrigins: ['http://ui.example:3000'],
      controlPlane: { warmSpare: false, sandboxProvider: 'process' },
    });
  });
  afterAll(() => server.close({ remove: true }));

  it('keeps only health, server info, the docs, the web UI and CORS preflights public; the WebSocket authenticates itself; a sandbox reads its settings with its own key', () => {
    const open = server.app.routeTable.filter((r) => r.access !== 'key');
    for (const route of open) {
      // A browser's preflight carries no key (src/server/cors.ts); it runs no handler of ours.
      const preflight = route.method === 'OPTIONS' && route.url === '*' && route.access === 'public';
      // The web UI's page and assets (src/server/routes/web.ts) hold no data.
      const page = route.url === '/ui' || route.url.startsWith('/ui/');
      const documented = preflight || page || PUBLIC.includes(route.url) || route.url.startsWith('/docs');
      const socket = route.access === 'own' && route.url.startsWith('/sockets/');
      const sandbox =
        route.access === 'sandbox' && route.url.startsWith('/api/v1/sandboxes/:sandbox_id/settings/');
      // The key, or the workspace-session cookie: the workspace file server and clearing that cookie.
      const workspace =
        route.access === 'workspace' &&
        (/^\/api\/conversations\/:conversation_id\/workspace(\/\*)?$/.test(route.url) ||
          (route.method === 'DELETE' && route.url === '/api/auth/workspace-session'));
      expect(
        documented || socket || sandbox || workspace,
        `${route.method} ${route.url} is ${route.access}`,
      ).toBe(true);
    }
    expect(server.app.routeTable.filter((r) => r.access === 'key').length).toBeGreaterThan(40);
    expect(open).toContainEqual(expect.objectContaining({ method: 'OPTIONS', url: '*', access: 'public' }));
    expect(server.app.routeTable.filter((r) => r.method === 'OPTIONS')).toHaveLength(1);
  });

  it('answers 401 or 404, never a handler, for every protected route in every spelling', async () => {
    const protectedRoutes = server.app.routeTable.filter(
      (r) => r.access === 'key' || r.access === 'sandbox' || r.access === 'workspace',
    );
    expect(protectedRoutes.filter((r) => r.access === 'sandbox')).toHaveLength(2);
    expect(protectedRoutes.filter((r) => r.access === 'workspace')).toHaveLength(3);
    let requests = 0;
    for (const route of protectedRoutes) {
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined;
      // A HEAD request is answered by the GET route (server/head.ts).
      const methods = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
      // A user's key is no sandbox's: it opens none of the sandbox's routes.
      // A forged workspace cookie opens nothing either.
      const refused =
        route.access === 'sandbox'
          ? [...KEYLESS, { 'X-Session-API-Key': 'the-key' }]
          : route.access === 'workspace'
            ? [...KEYLESS, { cookie: 'oh_workspace_session_key=the-key' }]
            : KEYLESS;
      for (const path of spellings(concrete(route.url))) {
        for (const headers of refused) {
          for (const method of methods) {
            const res = await rawRequest(server.url, { method, path, headers, body });
            requests++;
            const what = `${method} ${path} (route ${route.url}) → ${res.status} ${res.text}`;
            expect([401, 404], what).toContain(res.status);
            if (method === 'HEAD') expect(res.text, what).toBe('');
            else {
              // OpenAI's clients read `error`: the gateway's routes add it beside `detail` (routes/openai.ts).
              const { error, ...answer } = res.json() as { error?: { message: string }; detail?: string };
              expect(answer, what).toEqual({ detail: res.status === 401 ? 'Unauthorized' : 'Not Found' });
              if (error) expect(route.url.startsWith('/v1/') && error.message, what).toBe(answer.detail);
            }
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(1000);
  });

  it('reaches the handler with the key (the walk above would catch a handler)', async () => {
    const res = await rawRequest(server.url, {
      method: 'GET',
      path: `/api/conversations/${ID}`,
      headers: { 'X-Session-API-Key': 'the-key' },
    });
    expect(res.status).toBe(404);
    expect(res.json()).not.toEqual({ detail: 'Not Found' });
  });

  it('starts nothing through an encoded path without a key', async () => {
    const start = JSON.stringify({
      agent: { llm: { model: 'openai/gpt-4o', api_key: 'x' }, tools: [{ name: 'terminal' }] },
      workspace: { working_dir: server.dataDir },
    });
    for (const path of ['/%61pi/conversations', '/a%70i/conversations', '/ap%69/conversations']) {
      const res = await rawRequest(server.url, { method: 'POST', path, body: start });
      expect(res.status, path).toBe(401);
    }
    for (const path of ['/%61pi/v1/sandboxes', '/api/v1/%73andboxes']) {
      const res = await rawRequest(server.url, { method: 'POST', path, body: '{}' });
      expect(res.status, path).toBe(401);
    }
    const count = await api(server, '/api/conversations/count');
    expect(await count.json()).toBe(0);
    const sandboxes = await api(server, '/api/v1/sandboxes/search');
    expect(((await sandboxes.json()) as { items: unknown[] }).items).toEqual([]);
  });

  it('answers 404 {detail} for unknown routes, with or without a key', async () => {
    for (const key of [null, 'the-key']) {
      for (const path of ['/nothing', '/api/nothing-here', '/api/v1/nothing']) {
        const res = await api(server, path, { key });
        expect(res.status, path).toBe(404);
        expect(await res.json()).toEqual({ detail: 'Not Found' });
      }
    }
  });
});
