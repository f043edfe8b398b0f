// The web UI (web/, built into dist/web by scripts/build-web.mjs): the page at / for a browser (a
// request that prefers text/html; every other client still gets server_info there, see health.ts), at
// /ui and every /ui/... client route, and its hashed assets under /ui/assets/. All public: they hold
// no data; the page reads everything through the API with the session key the user gives it.
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { markPublic } from '../auth.js';

/** Where the build puts the UI: next to the bundled binary (dist/web), or dist/web from the sources. */
const CANDIDATES = ['./web/', '../../../dist/web/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

function webDir(): string | null {
  return CANDIDATES.find((dir) => existsSync(`${dir}index.html`)) ?? null;
}

// The page's only sources are its own assets; the browser screenshots it shows are data: URLs and its
// live events come over a WebSocket to this origin.
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

const NOT_BUILT = 'The agentd web UI is not built: run `npm run build`.\n';

/**
 * Whether the Accept header prefers HTML to JSON: a browser's navigation names text/html; curl, the
 * SDKs and fetch() send * / * or application/json, and keep getting JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',').slice(0, 32)) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html') html = Math.max(html, q);
    if (type === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}

let cachedPage: { dir: string; html: string } | null = null;

function page(): string | null {
  const dir = webDir();
  if (!dir) return null;
  if (cachedPage?.dir !== dir) cachedPage = { dir, html: readFileSync(`${dir}index.html`, 'utf8') };
  return cachedPage.html;
}

/** Answers with the page (or says it is not built). */
export function sendPage(reply: FastifyReply): FastifyReply {
  const html = page();
  if (html === null) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
  return reply.headers(PAGE_HEADERS).send(html);
}

/** GET / for a browser: the page; for anything else undefined (the caller answers server_info). */
export function rootPage(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  void reply.header('vary', 'Accept');
  return prefersHtml(request.headers.accept) ? sendPage(reply) : undefined;
}

export const webRoutes: FastifyPluginAsync = async (app) => {
  markPublic(app);
  const hidden = { hide: true };
  app.get('/ui', { schema: hidden }, async (_request, reply) => sendPage(reply));
  app.get('/ui/*', { schema: hidden }, async (request, reply) => {
    // A mistyped asset is a 404, not the page (a browser would try to run HTML as a script).
    if (request.url.startsWith('/ui/assets/')) return reply.code(404).send({ detail: 'Not Found' });
    return sendPage(reply);
  });
  const dir = webDir();
  if (dir) assetRoutes(app, join(dir, 'assets'));
};

/** The build's asset types; anything else in the folder is not served. */
const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Precompressed copies the build writes beside each asset, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/** The encodings an Accept-Encoding header allows (q > 0); `*` allows any. */
function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',').slice(0, 32)) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (token && (q === undefined || Number(q.slice(2)) > 0)) accepted.add(token);
  }
  return accepted;
}

/**
 * The hashed assets, as the build wrote them (listed once: a name is its content, so a new build
 * has new names), immutable, precompressed as the browser accepts. Names outside the listing are a
 * 404, so no path reaches outside the folder. Served here rather than by @fastify/static, whose
 * modules (glob, mime, send) cost ~15 ms of every cold start for two files.
 */
function assetRoutes(app: FastifyInstance, dir: string): void {
  const files = new Set(readdirSync(dir));
  app.get('/ui/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const type = ASSET_TYPES[extname(name)];
    if (!type || !files.has(name)) return reply.code(404).send({ detail: 'Not Found' });
    const accepted = acceptedEncodings(request.headers['accept-encoding']);
    const encoding = ENCODINGS.find(
      (e) => (accepted.has(e.name) || accepted.has('*')) && files.has(name + e.suffix),
    );
    const path = join(dir, encoding ? name + encoding.suffix : name);
    void reply.headers({
      'content-type': type,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
      'content-length': statSync(path).size,
    });
    if (encoding) void reply.header('content-encoding', encoding.name);
    return reply.send(createReadStream(path));
  });
}
