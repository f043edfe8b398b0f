// Asked when the server wants a session key and the browser has none (or a wrong one).
import { useState } from 'preact/hooks';

export function SignInPage(props: { rejected: boolean; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <main class="signin">
      <h1>agentd</h1>
      <p>
        Open the <em>web UI</em> address that <code>agentd serve</code> printed, or enter the session key
        here. It stays in this browser.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) props.onKey(key.trim());
        }}
      >
        <label>
          Session key
          <input
            type="password"
            name="session-key"
            autocomplete="current-password"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            required
          />
        </label>
        {props.rejected && (
          <p class="error" role="alert">
            The server did not accept that key.
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
