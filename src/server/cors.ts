// Cross-origin access for browsers. OpenHands' web UI is served from the control plane's origin and
// calls each sandbox's agent server (another origin: a loopback port) directly, so an agent server
// must answer the browser's CORS preflight and mark its answers readable by that origin. Like
// OpenHands' agent server (CORSMiddleware, allow_credentials, methods and headers "*"), but only for
// the origins configured: the control plane's own (passed to each sandbox it launches) plus
// AGENTD_CORS_ORIGINS. With none configured nothing is installed: same origin only, as before.
//
// The preflight carries no key (browsers send no custom headers on it), so @fastify/cors' catch-all
// `OPTIONS *` route is public; its hook runs ahead of the key check (see installAuth's beforeCheck),
// so a preflight never meets the check and a 401 still carries Access-Control-Allow-Origin (the
// browser can then read the status). Everything else about auth is unchanged.
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Methods the routes use; preflights for others are answered without them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Request headers a cross-origin caller may send (OpenHands' UI sends the key and JSON bodies). */
const ALLOWED_HEADERS = ['X-Session-API-Key', 'Content-Type', 'Authorization', 'X-Expose-Secrets', 'Accept'];

/**
 * The origins in a comma-separated list (AGENTD_CORS_ORIGINS), trimmed, without a trailing slash
 * (a browser's Origin header never has one), empty entries dropped.
 */
export function parseCorsOrigins(text: string | undefined): string[] {
  if (!text) return [];
  return text
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin.length > 0);
}

/** The origins a browser may use for a server listening on host:port (loopback has two names). */
export function originsOf(host: string, port: number): string[] {
  if (port === 0) return [];
  if (['127.0.0.1', 'localhost', '0.0.0.0', '::', '::1'].includes(host)) {
    return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  }
  return [`http://${host.includes(':') ? `[${host}]` : host}:${port}`];
}

/**
 * Answers preflights and adds the CORS headers for `origins` (none: installs nothing). Call it
 * before the key check is installed and after the route table starts recording, so the preflight
 * route is listed, public.
 */
export async function installCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  // The plugin's one route is `OPTIONS *`; no route of ours answers OPTIONS.
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*') {
      route.config = { ...(route.config as object), access: 'public' };
      route.schema = { ...route.schema, security: [] } as typeof route.schema;
    }
  });
  await app.register(cors, {
    origin: [...new Set(origins)],
    credentials: true,
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    // A plain OPTIONS without Origin is not a preflight: it answers 204 without Allow-Origin rather
    // than the plugin's text/plain 400.
    strictPreflight: false,
    maxAge: 600,
  });
}
