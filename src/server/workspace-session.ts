// The workspace-session cookie (OpenHands' `oh_workspace_session_key`): a browser cannot put the
// session key on an iframe's or a link's request, so a client that holds the key trades it for this
// cookie, which only the workspace file server reads (access 'workspace'). Unlike OpenHands' (the key
// itself), its value is derived from the key (SessionKeys.workspaceToken): it opens nothing else.
// HttpOnly, so a page served from the workspace cannot read it; scoped to /api/conversations. And the
// format of a workspace link (`…/workspace/~<token>/…`), for pages whose own requests carry no cookie.
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from '../net/index.js';

export const WORKSPACE_COOKIE = 'oh_workspace_session_key';
const COOKIE_PATH = '/api/conversations';
/** Browsers cap a cookie's life at 400 days; it lasts as long as the key it comes from is configured. */
const MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** A workspace link's token (SessionKeys.workspaceLink): its expiry (base 36) and MAC. */
export const LINK_TOKEN = /^([0-9a-z]{1,12})\.([\w-]{43})$/;

/**
 * The link in a workspace path (`~<token>/<rest>`): its token and the path after it (null when the
 * token ends the path, without its slash); null when the path starts with no link token.
 */
export function linkOf(path: string): { token: string; rest: string | null } | null {
  const match = /^~([^/]*)(?:\/(.*))?$/s.exec(path);
  if (!match || !LINK_TOKEN.test(match[1]!)) return null;
  return { token: match[1]!, rest: match[2] ?? null };
}

/** The cookie's value in a Cookie header, if there is one. */
export function workspaceCookie(header: IncomingHttpHeaders['cookie']): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === WORKSPACE_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie header that stores `token` (or clears it: null). Where the browser keeps `Secure`
 * cookies (HTTPS, or plain HTTP to a loopback host) it is `SameSite=None; Secure; Partitioned`, so
 * it also goes with the requests of a workspace page, which is served sandboxed (an origin of its
 * own); elsewhere `SameSite=Lax`, which browsers accept without TLS (pages then load, their
 * subresources not).
 */
export function workspaceCookieHeader(
  token: string | null,
  request: { protocol: string; hostname: string },
): string {
  const host = request.hostname.replace(/:\d+$/, '');
  const secure = request.protocol === 'https' || isLoopbackHost(host);
  const site = secure ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax';
  const life = token === null ? 'Max-Age=0' : `Max-Age=${MAX_AGE_SECONDS}`;
  return `${WORKSPACE_COOKIE}=${token ?? ''}; Path=${COOKIE_PATH}; ${life}; HttpOnly; ${site}`;
}
