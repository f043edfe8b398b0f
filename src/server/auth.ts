// Session-key authentication. Every /api route requires a configured key in X-Session-API-Key; the key
// also names the user (settings and conversations are per user). Health, docs and the OpenAPI document
// stay open. Keys are compared in constant time, over their SHA-256 digests so length does not leak.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { userIdForSessionKey } from '../settings/index.js';

export const SESSION_KEY_HEADER = 'x-session-api-key';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export class SessionKeys {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  /** Auth is off only when no key is configured (an explicit --no-auth). */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** True when the key is one of the configured keys. Every key is compared, so timing does not tell which. */
  accepts(key: string | undefined | null): boolean {
    if (!this.enabled) return true;
    if (typeof key !== 'string' || key.length === 0) return false;
    const candidate = digest(key);
    let ok = false;
    for (const d of this.digests) ok = timingSafeEqual(d, candidate) || ok;
    return ok;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's user id, derived from the session key ('local' when auth is off). */
    userId: string;
  }
}

const isApiPath = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

export function installAuth(app: FastifyInstance, keys: readonly string[]): SessionKeys {
  const sessionKeys = new SessionKeys(keys);
  app.decorateRequest('userId', '');
  app.addHook('onRequest', async (request, reply) => {
    if (!isApiPath(request.url)) return;
    const header = request.headers[SESSION_KEY_HEADER];
    const key = Array.isArray(header) ? header[0] : header;
    if (!sessionKeys.accepts(key)) {
      return reply.code(401).send({ detail: 'Unauthorized' });
    }
    request.userId = userIdForSessionKey(sessionKeys.enabled ? (key ?? null) : null);
  });
  return sessionKeys;
}
