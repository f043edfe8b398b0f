// The API client: every call sends the session key the browser keeps (localStorage, never a cookie),
// and a 401 asks the app to show the sign-in page.
const KEY_ITEM = 'agentd.sessionKey';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => undefined;

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function sessionKey(): string | null {
  return localStorage.getItem(KEY_ITEM);
}

export function setSessionKey(key: string | null): void {
  if (key) localStorage.setItem(KEY_ITEM, key);
  else localStorage.removeItem(KEY_ITEM);
}

/**
 * Takes a key from the address's fragment (`#key=…`, as the start-up banner prints it) into storage
 * and removes it from the address bar and history, so it is not bookmarked or shared by accident.
 * Another key than the one stored replaces it only when the user says so: a link from someone else
 * would otherwise sign this browser in as them, and what the user then saves would be theirs.
 */
export function adoptKeyFromFragment(): void {
  const match = /^#key=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return;
  history.replaceState(history.state, '', location.pathname + location.search);
  const offered = decodeURIComponent(match[1]);
  const stored = sessionKey();
  if (stored && stored !== offered && !confirm(SWITCH_KEY)) return;
  setSessionKey(offered);
}

const SWITCH_KEY =
  'This link signs this browser in with another session key than the one it holds, perhaps another ' +
  "user's: the conversations, settings and keys you save would then be that key's. Switch to it?";

/** A readable message from an error answer: {detail: "..."} or the validation list. */
function detailOf(body: unknown, status: number): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).join('.')}: ${d.msg}`)
      .join('; ');
  return `HTTP ${status}`;
}

export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...init.headers };
  const key = sessionKey();
  if (key) headers['X-Session-API-Key'] = key;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, detailOf(body, res.status));
  return body as T;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
