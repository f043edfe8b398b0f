// How agentd serves its web UI: the page at / only for a browser (Accept: text/html; OpenHands clients
// keep reading server_info there), every /ui/... route, hashed assets with long caching and
// precompressed bodies, all without a key while the API behind them still wants one; and the build's
// JavaScript budget.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
const BUDGET = 150 * 1024;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ keys: ['web-key'] });
});
afterAll(() => server.close({ remove: true }));

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers });

describe('the web UI routes', () => {
  it('answers / with the page for a browser and server_info for everyone else, saying it varies by Accept', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await get('/', accept ? { accept } : {});
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('vary')).toMatch(/Accept/i);
      expect(await res.json()).toMatchObject({ title: 'agentd', docs: '/docs' });
    }
    for (const accept of [BROWSER_ACCEPT, 'text/html']) {
      const res = await get('/', { accept });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('vary')).toMatch(/Accept/i);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toMatch(/<script type="module" src="\/ui\/assets\/app-[A-Z0-9]+\.js">/);
    }
  });

  it('serves the page on every client route without a key, while the API still wants one', async () => {
    for (const path of [
      '/ui',
      '/ui/new',
      '/ui/settings',
      '/ui/sandboxes',
      `/ui/conversations/${'a'.repeat(32)}`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain('<div id="app">');
    }
    expect((await get('/api/conversations/search')).status).toBe(401);
    expect((await get('/ui/assets/missing.js')).status).toBe(404);
  });

  it('serves the hashed assets immutable, compressed as the browser asks', async () => {
    const html = await (await get('/ui')).text();
    const assets = [...html.matchAll(/\/ui\/assets\/[^"]+/g)].map((m) => m[0]);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const plain = await get(asset, { 'accept-encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('cache-control')).toContain('immutable');
      const body = await plain.arrayBuffer();
      const gz = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      // fetch undoes the gzip: the same bytes arrive.
      expect(Buffer.from(await gz.arrayBuffer()).equals(Buffer.from(body))).toBe(true);
      expect(plain.headers.get('content-type')).toMatch(
        asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/,
      );
      expect(plain.headers.get('content-encoding')).toBeNull();
      const br = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'gzip, br' } });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(Buffer.from(await br.arrayBuffer()).equals(Buffer.from(body))).toBe(true);
      // q=0 refuses an encoding.
      const refused = await fetch(`${server.url}${asset}`, {
        headers: { 'accept-encoding': 'br;q=0, gzip' },
      });
      expect(refused.headers.get('content-encoding')).toBe('gzip');
      await refused.arrayBuffer();
    }
    expect((await get('/ui/assets/..%2Findex.html')).status).toBe(404);
    expect((await get('/ui/assets/build-info.json')).status).toBe(404);
  });

  it('keeps the JavaScript within its budget, as the build measured it', () => {
    const info = JSON.parse(readFileSync('dist/web/build-info.json', 'utf8')) as {
      js_gzip_bytes: number;
      budget_bytes: number;
    };
    const js = readdirSync('dist/web/assets').filter((f) => f.endsWith('.js'));
    const measured = js.reduce(
      (sum, f) => sum + gzipSync(readFileSync(`dist/web/assets/${f}`), { level: 9 }).length,
      0,
    );
    expect(info.budget_bytes).toBe(BUDGET);
    expect(info.js_gzip_bytes).toBe(measured);
    expect(measured).toBeLessThanOrEqual(BUDGET);
  });
});

describe('the sign-in URL in the banner', () => {
  it('carries the generated key in the fragment, and nothing with --no-auth', async () => {
    const cli = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-web-banner-')]);
    try {
      expect(cli.output()).toContain(`web UI: ${cli.url}/#key=${cli.key}\n`);
    } finally {
      await cli.stop();
    }
    const open = await runCli([
      'serve',
      '--no-auth',
      '--port',
      '0',
      '--data-dir',
      tempDir('agentd-web-banner-'),
    ]);
    try {
      expect(open.output()).toContain(`web UI: ${open.url}/\n`);
    } finally {
      await open.stop();
    }
  });
});
