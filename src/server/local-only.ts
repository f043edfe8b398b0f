// A server without a session key (--no-auth, which binds loopback only) trusts whoever reaches it, so
// it must only be reached from this machine's own programs, not from web pages the user happens to
// have open: a page on another origin could otherwise open /sockets/bash-events and run commands, or
// post a multipart upload (a request browsers send cross-origin without asking). Two rules close that:
// - the Host must name loopback (localhost, *.localhost, 127.0.0.0/8, [::1]): a DNS-rebinding page
//   reaches 127.0.0.1 under its own name, which this refuses;
// - a request that says it comes from a page (Origin) and could change something (any method but GET
//   and HEAD, and every WebSocket) must come from this server's own origin or one configured for CORS
//   (AGENTD_CORS_ORIGINS); programs that send no Origin are not pages, and a page cannot read what
//   another origin answers its GET (a sandboxed workspace page still fetches its own files).
// With session keys none of this applies: a page has no key. Public routes (health, the web UI's page
// and assets) hold no data and stay open. The refusal is the 401 every protected route documents.
import type { FastifyInstance } from 'fastify';
import { isLoopbackHost } from '../net/index.js';
import { accessOf } from './auth.js';

/** The name of a Host header (`127.0.0.1:8000`, `[::1]:8000`, `localhost`), its port cut. */
function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
}

/** Why the request may not be answered by a server without keys; null when it may. */
export function localOnlyRefusal(
  method: string,
  headers: { host?: string; origin?: string; upgrade?: string },
  corsOrigins: readonly string[],
): string | null {
  const { host, origin } = headers;
  if (host !== undefined && !isLoopbackHost(hostName(host)))
    return `This server runs without a session key (--no-auth): it answers only requests addressed to localhost, 127.0.0.1 or [::1], not to ${host.slice(0, 200)}`;
  const reads = (method === 'GET' || method === 'HEAD') && headers.upgrade === undefined;
  if (reads || origin === undefined || corsOrigins.includes(origin)) return null;
  let same = false;
  try {
    same = host !== undefined && new URL(origin).host === host.toLowerCase();
  } catch {
    // Not a URL ("null" from a sandboxed page or a file): not this server's origin.
  }
  return same
    ? null
    : `This server runs without a session key (--no-auth): a page on ${origin.slice(0, 200)} may not call it`;
}

/** Refuses (401) what localOnlyRefusal refuses, ahead of every protected route, the WebSockets' upgrades too. */
export function installLocalOnly(app: FastifyInstance, corsOrigins: readonly string[]): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404 || accessOf(request.routeOptions) === 'public') return done();
    const refusal = localOnlyRefusal(request.raw.method ?? '', request.headers, corsOrigins);
    if (refusal === null) return done();
    reply.code(401).send({ detail: refusal });
  });
}
