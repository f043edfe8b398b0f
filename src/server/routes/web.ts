// The web UI (web/, built into dist/web by scripts/build-web.mjs): the page at / for a browser (a
// request that prefers text/html; every other client still gets server_info there, see health.ts), at
// /ui and every /ui/... client route, and its hashed assets under /ui/assets/. All public: they hold
// no data; the page reads everything through the API with the session key the user gives it.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
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
  if (dir) {
    await app.register(fastifyStatic, {
      root: `${dir}assets`,
      prefix: '/ui/assets/',
      // Names carry a content hash: a new build has new names, so an old one never goes stale.
      immutable: true,
      maxAge: '365d',
      preCompressed: true,
      // One wildcard route that looks the file up on request: wildcard:false globs the folder at
      // start-up instead (~20 ms of cold start for a handful of files). A missing one is still a 404.
      wildcard: true,
      index: false,
      schemaHide: true,
    });
  }
};
