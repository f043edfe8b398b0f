// Where an MCP server's authorization server sends the browser back (/ui/oauth/callback?code=…&state=…):
// the page hands that URL to POST /api/mcp/oauth/callback/{job} with the session key this browser
// keeps (the job's id is the part of `state` before the dot), and says how it went. It reads its own
// address only, never redirects, and takes the code out of the address bar before anything renders.
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { McpOAuthStatus } from '../types.js';

export const OAUTH_CALLBACK_PATH = '/ui/oauth/callback';

/**
 * The address the browser landed on, when it is the callback's, taken out of the address bar and the
 * history (its code is a credential until used); called once, before the app renders.
 */
export function takeOAuthCallback(): string | null {
  if (location.pathname !== OAUTH_CALLBACK_PATH || !location.search) return null;
  const landed = location.href;
  history.replaceState(null, '', location.pathname);
  return landed;
}

type Outcome = { kind: 'sending' } | { kind: 'done'; text: string } | { kind: 'failed'; text: string };

export function OAuthCallbackPage(props: { landed: string | null }) {
  const [outcome, setOutcome] = useState<Outcome>({ kind: 'sending' });
  useEffect(() => {
    const landed = props.landed;
    const job = landed ? (new URL(landed).searchParams.get('state') ?? '').split('.')[0] : '';
    if (!landed || !/^[0-9a-f]{64}$/.test(job ?? '')) {
      setOutcome({
        kind: 'failed',
        text: 'This page finishes signing in to an MCP server; it was opened without one.',
      });
      return;
    }
    api<McpOAuthStatus>(`/api/mcp/oauth/callback/${job}`, { method: 'POST', body: { callback_url: landed } })
      .then((status) =>
        setOutcome(
          status.status === 'failed'
            ? { kind: 'failed', text: status.error ?? 'The sign-in failed.' }
            : {
                kind: 'done',
                text: 'Signed in to the MCP server. You can close this tab: the settings page adds it.',
              },
        ),
      )
      .catch((error: unknown) => setOutcome({ kind: 'failed', text: errorText(error) }));
  }, [props.landed]);
  return (
    <section>
      <h1>MCP server sign-in</h1>
      {outcome.kind === 'sending' && <p class="muted">Finishing the sign-in…</p>}
      {outcome.kind === 'done' && (
        <p class="ok" role="status">
          {outcome.text}
        </p>
      )}
      {outcome.kind === 'failed' && (
        <p class="error" role="alert">
          {outcome.text}
        </p>
      )}
    </section>
  );
}
