// Shared keys (/api/llm/provider-connections): an API key and base URL kept once, which LLM profiles
// use by reference; a new key here reaches every profile that uses it from its next conversation.
// The page sends a key once and never sees it again (only whether one is set).
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, useAction, useFetched } from '../ui.js';

export interface Connection {
  id: string;
  display_name: string;
  provider: string;
  base_url: string | null;
  api_key_set: boolean;
}

const PATH = '/api/llm/provider-connections';

/** The caller's shared keys (null while loading, none from a server without the route) and a reload. */
export function useConnections(): [Connection[] | null, () => Promise<void>] {
  const [list, load] = useFetched<Connection[]>(PATH, []);
  return [list, load];
}

export function SharedKeys(props: { connections: Connection[]; onChange: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [key, setKey] = useState('');
  const { act, error } = useAction(props.onChange);
  const add = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api(PATH, {
        method: 'POST',
        body: {
          display_name: name.trim(),
          api_key: key,
          ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
        },
      });
      setName('');
      setBaseUrl('');
      setKey('');
    });
  };
  return (
    <div class="stack">
      <h3>Shared keys</h3>
      <p class="muted">
        A key kept once for several profiles ("Key" below): a new key here reaches every profile that uses it.
      </p>
      <ul class="list" aria-label="Shared keys">
        {props.connections.map((c) => (
          <li key={c.id} class="wrap">
            <span class="grow">
              <strong>{c.display_name}</strong> {c.base_url && <code>{c.base_url}</code>}{' '}
              <span class="muted">{c.api_key_set ? 'key set' : 'no key'}</span>
            </span>
            <button
              type="button"
              class="danger"
              onClick={() => void act(() => api(`${PATH}/${encodeURIComponent(c.id)}`, { method: 'DELETE' }))}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form class="stack" aria-label="Add a shared key" onSubmit={add}>
        <label>
          Name
          <input
            name="connection-name"
            required
            maxLength={128}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label>
          Base URL (optional)
          <input
            name="connection-base-url"
            value={baseUrl}
            placeholder="https://…/v1"
            onInput={(e) => setBaseUrl(e.currentTarget.value)}
          />
        </label>
        <label>
          Key
          <input
            name="connection-key"
            type="password"
            required
            autocomplete="off"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit">Add shared key</button>
      </form>
    </div>
  );
}
