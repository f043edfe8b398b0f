// Session-key authentication, denied by default and decided per route. Every route needs a configured
// key in X-Session-API-Key (or as `Authorization: Bearer <key>`, as OpenHands Cloud's clients send
// it) unless the route itself says otherwise in its config (`access`): 'public'
// for health, server info and the docs, 'own' for the WebSocket, which authenticates in its handler,
// 'sandbox' for what a sandbox reads with its own key (its owner's secrets, OpenHands Cloud's way),
// 'workspace' for the workspace file server, which a browser's iframe reaches with a cookie
// (workspace-session.ts) since it cannot send a header; no other route reads that cookie.
// The decision reads the matched route, never the URL text, so an encoded path (`/%61pi/...`) that the
// router decodes onto a protected route meets the same check. The key also names the user (settings
// and conversations are per user). Keys are compared in constant time, over their SHA-256 digests so
// length does not leak.
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { dashedUuid } from '../events/index.js';
import { userIdForSessionKey } from '../settings/index.js';
import { LINK_TOKEN, linkOf, workspaceCookie } from './workspace-session.js';

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
 * Who may call a route: 'key' (the default), 'public', 'own' (the handler authenticates),
 * 'sandbox': the session key of the live sandbox its path names (`:sandbox_id`), which acts for that
 * sandbox's owner (a user's key is refused there), or 'workspace': a key, or the workspace-session
 * cookie POST /api/auth/workspace-session sets (the workspace file server, for iframes and links).
 */
export type RouteAccess = 'key' | 'public' | 'own' | 'sandbox' | 'workspace';

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

/** What a workspace-session cookie holds for a key: a MAC of it, which opens no other route. */
function workspaceTokenOf(key: string): string {
  return createHmac('sha256', key).update('agentd workspace session v1').digest('base64url');
}

function linkMac(key: string, conversationId: string, expires: number): string {
  return createHmac('sha256', key)
    .update(`agentd workspace link v1\n${conversationId}\n${expires}`)
    .digest('base64url');
}

/** Whether two keys are equal, in constant time over their digests (length does not leak). */
function sameKey(offered: string, expected: string): boolean {
  return timingSafeEqual(digest(offered), digest(expected));
}

export class SessionKeys {
  private readonly digests: Buffer[];
  /** The user id each configured key names, worked out once rather than hashed again per request. */
  private readonly users: string[];
  /** Digests of each key's workspace token (workspaceToken), in the order of the keys. */
  private readonly workspaceTokens: Buffer[];

  constructor(private readonly keys: readonly string[]) {
    this.digests = keys.map(digest);
    this.users = keys.map((key) => userIdForSessionKey(key));
    this.workspaceTokens = keys.map((key) => digest(workspaceTokenOf(key)));
  }

  /**
   * The value of the workspace-session cookie for a configured key: derived from it, so a cookie
   * read off a disk or a proxy log cannot be used as the key; valid for as long as the key is.
   */
  workspaceToken(key: string): string {
    return workspaceTokenOf(key);
  }

  /**
   * A link to one conversation's workspace that carries its own credential (workspace-session.ts:
   * a sandboxed page's requests carry no cookie): `expires` (seconds since the epoch) and a MAC of it
   * and the conversation under the key.
   */
  workspaceLink(key: string, conversationId: string, expires: number): string {
    return `${expires.toString(36)}.${linkMac(key, conversationId, expires)}`;
  }

  /** The user a workspace link token names for that conversation while it has not expired, else null. */
  userOfWorkspaceLink(token: string, conversationId: string, nowSeconds: number): string | null {
    const match = LINK_TOKEN.exec(token);
    const expires = match ? Number.parseInt(match[1]!, 36) : 0;
    if (!match || !(expires > nowSeconds)) return null;
    if (!this.enabled) return userIdForSessionKey(null);
    const macs = this.keys.map((key) => digest(linkMac(key, conversationId, expires)));
    return this.userAmong(macs, match[2]!);
  }

  /** The user a workspace token names (one of workspaceToken's), else null; the local user with auth off. */
  userOfWorkspaceToken(token: string | undefined): string | null {
    if (!this.enabled) return userIdForSessionKey(null);
    return token ? this.userAmong(this.workspaceTokens, token) : null;
  }

  /** Auth is off only when no key is configured (an explicit --no-auth). */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /**
   * The user id the key names when it is one of the configured keys, else null (with auth off:
   * the local user).
   */
  userOf(key: string | undefined | null): string | null {
    if (!this.enabled) return userIdForSessionKey(null);
    if (typeof key !== 'string' || key.length === 0) return null;
    return this.userAmong(this.digests, key);
  }

  /**
   * The user of the key whose digest in `expected` (one per key, in key order) is `offered`'s. Every
   * one is compared, in constant time, so timing does not tell which.
   */
  private userAmong(expected: readonly Buffer[], offered: string): string | null {
    const candidate = digest(offered);
    let user: string | null = null;
    for (let i = 0; i < expected.length; i++) {
      if (timingSafeEqual(expected[i]!, candidate)) user = this.users[i]!;
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
    if (access === 'workspace') {
      const user =
        requestUser(sessionKeys, request.headers) ??
        sessionKeys.userOfWorkspaceToken(workspaceCookie(request.headers.cookie)) ??
        linkUser(sessionKeys, request.params);
      return admit(request, reply, done, user);
    }
    if (access !== 'sandbox') return done();
    sandboxUser(request, sandboxCredentials).then((user) => admit(request, reply, done, user), done);
  });
  return { sessionKeys, routes };
}

/** The user of a workspace link (`…/workspace/~<token>/…`, workspace-session.ts), if the path has a valid one. */
function linkUser(keys: SessionKeys, params: unknown): string | null {
  const { conversation_id, '*': path } = params as { conversation_id?: string; '*'?: string };
  const token = path === undefined ? undefined : linkOf(path)?.token;
  if (!token || !conversation_id) return null;
  return keys.userOfWorkspaceLink(token, dashedUuid(conversation_id), Math.floor(Date.now() / 1000));
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
