// The agentd web UI: signs in with the session key (from the banner's URL or typed), then routes to
// the conversations, a conversation, a new one, the settings, the sandboxes, or the page an MCP
// server's sign-in comes back to.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  ApiError,
  adoptKeyFromFragment,
  api,
  errorText,
  setSessionKey,
  setUnauthorizedHandler,
} from './api.js';
import { ConversationPage } from './pages/conversation.js';
import { ConversationsPage } from './pages/conversations.js';
import { NewConversationPage } from './pages/new.js';
import { OAuthCallbackPage, takeOAuthCallback } from './pages/oauth-callback.js';
import { SandboxesPage } from './pages/sandboxes.js';
import { SettingsPage } from './pages/settings.js';
import { SignInPage } from './pages/signin.js';
import { useRoute } from './router.js';
import { Link } from './ui.js';
import './styles/base.css';
import './styles/conversation.css';

type Auth = 'checking' | 'signed-in' | 'needs-key' | { error: string };

function App(props: { oauthCallback: string | null }) {
  const route = useRoute();
  const [auth, setAuth] = useState<Auth>('checking');
  const [tried, setTried] = useState(false);
  const check = () => {
    api('/api/settings')
      .then(() => setAuth('signed-in'))
      .catch((error: unknown) =>
        setAuth(
          error instanceof ApiError && error.status === 401 ? 'needs-key' : { error: errorText(error) },
        ),
      );
  };
  useEffect(() => {
    setUnauthorizedHandler(() => setAuth('needs-key'));
    check();
  }, []);

  if (auth === 'checking') return <p class="loading">Connecting…</p>;
  if (typeof auth === 'object') return <p class="error">The server did not answer: {auth.error}</p>;
  if (auth === 'needs-key')
    return (
      <SignInPage
        rejected={tried}
        onKey={(key) => {
          setTried(true);
          setSessionKey(key);
          setAuth('checking');
          check();
        }}
      />
    );
  const current = route.name;
  const nav = (name: string, href: string, label: string) => (
    <Link href={href} class={current === name ? 'active' : undefined}>
      {label}
    </Link>
  );
  return (
    <>
      <header class="top">
        <Link href="/ui" class="brand">
          agentd
        </Link>
        <nav aria-label="Main">
          {nav('conversations', '/ui', 'Conversations')}
          {nav('new', '/ui/new', 'New')}
          {nav('sandboxes', '/ui/sandboxes', 'Sandboxes')}
          {nav('settings', '/ui/settings', 'Settings')}
        </nav>
      </header>
      <main>
        {route.name === 'conversations' && <ConversationsPage />}
        {route.name === 'new' && <NewConversationPage key={route.parent ?? ''} parentId={route.parent} />}
        {route.name === 'settings' && <SettingsPage />}
        {route.name === 'sandboxes' && <SandboxesPage />}
        {route.name === 'conversation' && <ConversationPage key={route.id} id={route.id} />}
        {route.name === 'oauth-callback' && <OAuthCallbackPage landed={props.oauthCallback} />}
        {route.name === 'missing' && (
          <p>
            No such page. <Link href="/ui">Conversations</Link>
          </p>
        )}
      </main>
    </>
  );
}

adoptKeyFromFragment();
// Before anything renders: the callback's code leaves the address bar at once.
const oauthCallback = takeOAuthCallback();
render(<App oauthCallback={oauthCallback} />, document.getElementById('app')!);
