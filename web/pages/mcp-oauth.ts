// Adding a remote MCP server that signs in with OAuth: POST /api/mcp/oauth/start, the authorization
// page opened in a new tab (the authorization server sends it back to this server's
// /ui/oauth/callback, which completes the job), the job's status polled until it has ended, and the
// server saved with the state it answered (POST /api/settings/mcp/{key}; PATCH when the key is
// taken: signing in again).
import { ApiError, api } from '../api.js';
import type { McpOAuthStatus } from '../types.js';

/** How often the status is read while the user signs in, and for how long (a job lives 15 minutes). */
const POLL_MS = 1000;
const GIVE_UP_MS = 15 * 60_000;

export interface OAuthProgress {
  /** A line for the user: what happens now. */
  note(text: string): void;
  /** The page to sign in on, for a link when the tab could not be opened. */
  link(url: string): void;
}

/**
 * Signs in to the server and saves it under `key`. `tab`: a tab opened while the user's click was
 * still being handled (browsers block one opened after an await), pointed at the sign-in page here.
 */
export async function addWithOAuth(
  key: string,
  server: { type: 'http' | 'sse'; url: string },
  tab: Window | null,
  progress: OAuthProgress,
): Promise<string[]> {
  const spec = { ...server, auth: { strategy: 'oauth2' } };
  let started: { ok: boolean; job_id?: string; authorization_url?: string; error?: string };
  try {
    started = await api('/api/mcp/oauth/start', { method: 'POST', body: { name: key, server: spec } });
  } catch (error) {
    tab?.close();
    throw error;
  }
  if (!started.ok || !started.job_id) {
    tab?.close();
    throw new Error(started.error ?? 'The sign-in could not start');
  }
  if (started.authorization_url) {
    if (tab) tab.location.href = started.authorization_url;
    else progress.link(started.authorization_url);
    progress.note('Waiting for you to sign in, in the other tab…');
  } else tab?.close();
  const status = await finished(started.job_id);
  if (status.status === 'failed') throw new Error(status.error ?? 'The sign-in failed');
  progress.note('Signed in; saving the server…');
  const body = { ...spec, auth: { strategy: 'oauth2', state: status.oauth_state ?? null } };
  const path = `/api/settings/mcp/${encodeURIComponent(key)}`;
  try {
    await api(path, { method: 'POST', body });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    await api(path, { method: 'PATCH', body });
  }
  return status.tools ?? [];
}

/** The job's status once it has ended. */
async function finished(jobId: string): Promise<McpOAuthStatus> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    const status = await api<McpOAuthStatus>(`/api/mcp/oauth/status/${jobId}`);
    if (status.status === 'succeeded' || status.status === 'failed') return status;
    if (Date.now() > deadline) throw new Error('The sign-in was not finished in time');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The key a server is saved under: the name given, else its host. */
export function keyFor(name: string, url: string): string {
  if (name.trim()) return name.trim();
  try {
    return new URL(url).hostname || 'mcp';
  } catch {
    return 'mcp';
  }
}
