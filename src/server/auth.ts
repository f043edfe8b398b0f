// Session-key authentication, denied by default and decided per route. Every route needs a configured
// key in X-Session-API-Key (or as `Authorization: Bearer <key>`, as OpenHands Cloud's clients send
// it) unless the route itself says otherwise in its config (`access`): 'public'
// for health, server info and the docs, 'own' for the WebSocket, which authenticates in its handler,
// 'sandbox' for what a sandbox reads with its own key (its owner's secrets, OpenHands Cloud's way).
// The decision reads the matched route, never the URL text, so an encoded path (`/%61pi/...`) that the
// router decodes onto a protected route meets the same check. The key also names the user (settings
// and conversations are per user). Keys are compared in constant time, over their SHA-256 digests so
// length does not leak.
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { userIdForSessionKey } from '../settings/index.js';

export const SESSION_KEY_HEADER = 'x-session-api-key';

/** The OpenAPI security schemes every protected operation declares: either one carries the key. */
export const SECURITY_SCHEME = 'APIKeyHeader';
export const BEARER_SCHEME = 'HTTPBearer';

const BEARER = /^Bearer +(\S+) *$/i;

function headerKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers[SESSION_KEY_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/**
 * The keys a request offers, in the order they count: X-Session-API-Key, then an `Authorization:
 * Bearer` token. OpenHands Cloud's clients (the SDK's OpenHandsCloudWorkspace) send the user's key as
 * the token, at times beside a sandbox's key in the header.
 */
export function offeredKeys(headers: IncomingHttpHeaders): string[] {
  return [headerKey(headers), bearerToken(headers)].filter((k) => k !== undefined);
}

/**
 * The user the first configured key among those offered (offeredKeys) names; null when none is one.
 * Without an array: it runs on every protected request, and a request with its header key reads no more.
 */
export function requestUser(keys: SessionKeys, headers: IncomingHttpHeaders): string | null {
  const user = keys.userOf(headerKey(headers));
  if (user !== null || headers.authorization === undefined) return user;
  const token = bearerToken(headers);
  return token === undefined ? null : keys.userOf(token);
}

/**
 * Who may call a route: 'key' (the default), 'public', 'own' (the handler authenticates), or
 * 'sandbox': the session key of the live sandbox its path names (`:sandbox_id`), which acts for that
 * sandbox's owner (a user's key is refused there).
 */
export type RouteAccess = 'key' | 'public' | 'own' | 'sandbox';

/** The owner and key of a live sandbox by id (the control plane's SandboxService.liveCredentials). */
export type SandboxCredentials = (id: string) => Promise<{ ownerId: string; key: string } | null>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Absent means 'key': a route is protected unless it says otherwise. */
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The caller's user id, derived from the session key ('local' when auth is off). */
    userId: string;
  }
}

// One-shot hash: no Hash object per request (the check runs on every protected request).
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Whether two keys are equal, in constant time over their digests (length does not leak). */
function sameKey(offered: string, expected: string): boolean {
  return timingSafeEqual(digest(offered), digest(expected));
}

export class SessionKeys {
  private readonly digests: Buffer[];
  /** The user id each configured key names, worked out once rather than hashed again per request. */
  private readonly users: string[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
    this.users = keys.map((key) => userIdForSessionKey(key));
  }

  /** Auth is off only when no key is configured (an explicit --no-auth). */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /**
   * The user id the key names when it is one of the configured keys, else null (with auth off:
   * the local user). Every key is compared, so timing does not tell which.
   */
  userOf(key: string | undefined | null): string | null {
    if (!this.enabled) return userIdForSessionKey(null);
    if (typeof key !== 'string' || key.length === 0) return null;
    const candidate = digest(key);
    let user: string | null = null;
    for (let i = 0; i < this.digests.length; i++) {
      if (timingSafeEqual(this.digests[i]!, candidate)) user = this.users[i]!;
    }
    return user;
  }
}

/** One registered route and who may call it. */
export interface RouteEntry {
  method: string;
  url: string;
  access: RouteAccess;
}

export function accessOf(route: Pick<RouteOptions, 'config'>): RouteAccess {
  return (route.config as { access?: RouteAccess } | undefined)?.access ?? 'key';
}

/**
 * Marks every route registered in `scope` (a plugin's instance) as public, for plugins whose routes we
 * do not declare ourselves (the swagger-ui pages). Call it inside the plugin scope before registering.
 */
export function markPublic(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    route.config = { ...(route.config as object), access: 'public' };
    route.schema = { ...route.schema, security: [] } as typeof route.schema;
  });
}

/**
 * Installs the per-route check and returns the session keys and the table of registered routes (every
 * route, with its access; tests walk it). Install it before any route is registered. `beforeCheck`
 * installs what must run ahead of the key check (CORS: a preflight has no key, and a 401 must carry
 * the CORS headers); routes it registers are still recorded.
 */
export async function installAuth(
  app: FastifyInstance,
  keys: readonly string[],
  beforeCheck?: () => Promise<void>,
  sandboxCredentials?: SandboxCredentials,
): Promise<{ sessionKeys: SessionKeys; routes: RouteEntry[] }> {
  const sessionKeys = new SessionKeys(keys);
  const routes: RouteEntry[] = [];
  app.decorateRequest('userId', '');
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // Read when asked: hooks of inner scopes (markPublic) run after this one and may still set it.
    for (const method of methods) {
      routes.push({
        method,
        url: route.url,
        get access() {
          return accessOf(route);
        },
      });
    }
    if (accessOf(route) === 'public') {
      // Public operations say so in the OpenAPI document; the rest inherit the global key requirement.
      route.schema = { ...route.schema, security: [] } as typeof route.schema;
    }
  });
  await beforeCheck?.();
  // A callback hook, not an async one: the check is synchronous, and a promise per request would
  // cost every protected request a microtask turn before its handler runs.
  app.addHook('onRequest', (request, reply, done) => {
    // An unknown route has no handler to protect: it answers 404 (the route table is public anyway,
    // in /openapi.json).
    if (request.is404) return done();
    const access = request.routeOptions.config.access ?? 'key';
    if (access === 'key') return admit(request, reply, done, requestUser(sessionKeys, request.headers));
    if (access !== 'sandbox') return done();
    sandboxUser(request, sandboxCredentials).then((user) => admit(request, reply, done, user), done);
  });
  return { sessionKeys, routes };
}

/** Lets the request on as `user`, or answers 401 when there is none (then nothing after the hook runs). */
function admit(request: FastifyRequest, reply: FastifyReply, done: () => void, user: string | null): void {
  if (user === null) return void reply.code(401).send({ detail: 'Unauthorized' });
  request.userId = user;
  done();
}

/**
 * The owner of the sandbox a 'sandbox' route names, when a key the request offers is that sandbox's
 * own; null otherwise (no control plane, an unknown or stopped sandbox, any other key).
 */
async function sandboxUser(
  request: { params: unknown; headers: IncomingHttpHeaders },
  credentials: SandboxCredentials | undefined,
): Promise<string | null> {
  const id = (request.params as { sandbox_id?: string }).sandbox_id;
  const offered = offeredKeys(request.headers);
  if (!credentials || !id || offered.length === 0) return null;
  const sandbox = await credentials(id);
  if (!sandbox) return null;
  return offered.some((key) => sameKey(key, sandbox.key)) ? sandbox.ownerId : null;
}
