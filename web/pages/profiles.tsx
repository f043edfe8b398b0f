// LLM profiles (/api/profiles): saved LLMs to switch between. Saving one takes the settings' LLM as
// stored, its key sealed (GET /api/settings with X-Expose-Secrets: encrypted; the page never holds it
// in clear), or with a shared key instead (connections.tsx); "Use" makes one the settings' LLM; a
// conversation switches to one while it runs.
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { ProfileList } from '../types.js';
import { ErrorNote, UseAndDelete, useAction } from '../ui.js';
import { SharedKeys, useConnections } from './connections.js';

/** OpenHands' profile names: a letter or digit, then letters, digits, `.`, `_`, `-`; 64 at most. */
const NAME_PATTERN = '[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}';

const path = (name: string) => `/api/profiles/${encodeURIComponent(name)}`;

/** The caller's profiles; `null` while loading. */
export function useProfiles(): [ProfileList | null, () => Promise<void>, string | null] {
  const [list, setList] = useState<ProfileList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<ProfileList>('/api/profiles')
      .then(setList)
      .catch((e: unknown) => setError(errorText(e)));
  useEffect(() => void load(), []);
  return [list, load, error];
}

export function LlmProfiles(props: { onChange: () => void }) {
  const [list, load, loadError] = useProfiles();
  const [connections, loadConnections] = useConnections();
  const [name, setName] = useState('');
  const [connection, setConnection] = useState('');
  const { act, error } = useAction(async () => {
    await load();
    props.onChange();
  });
  const saveStored = () =>
    act(async () => {
      const sealed = await api<{ agent_settings: { llm: Record<string, unknown> } }>('/api/settings', {
        headers: { 'X-Expose-Secrets': 'encrypted' },
      });
      const { llm } = sealed.agent_settings;
      // With a shared key the profile keeps the settings' model and the connection's key and base URL.
      const body = connection ? { llm: { model: llm.model, provider_connection_id: connection } } : { llm };
      await api(path(name), { method: 'POST', body });
      setName('');
    });

  return (
    <section class="profiles">
      <h2>LLM profiles</h2>
      <p class="muted">
        "Add profile" keeps the LLM above, as saved, under a name; "Use" makes a profile the LLM above; a
        conversation can switch to one while it runs.
      </p>
      {list?.profiles.length === 0 && <p class="muted">None saved yet.</p>}
      <ul class="list">
        {list?.profiles.map((p) => (
          <li key={p.name} class="wrap">
            <span class="grow">
              <strong>{p.name}</strong> <code>{p.model}</code>{' '}
              <span class="muted">
                {p.provider_connection_id
                  ? `shared key: ${connections?.find((c) => c.id === p.provider_connection_id)?.display_name ?? 'gone'}`
                  : p.api_key_set
                    ? 'key set'
                    : 'no key'}
              </span>{' '}
              {list.active_profile === p.name && <span class="badge status-finished">in use</span>}
            </span>
            <UseAndDelete act={act} activate={`${path(p.name)}/activate`} remove={path(p.name)} />
          </li>
        ))}
      </ul>
      {list && list.profiles.length > 0 && (
        <p class="muted" role="note" aria-label="OpenAI-compatible API">
          Any OpenAI client runs the agent on a profile: base URL <code>{`${location.origin}/v1`}</code>, your
          session key as its API key, model <code>openhands_{list.profiles[0]?.name}</code> (one per profile).
        </p>
      )}
      <form
        class="stack"
        aria-label="Save the LLM as a profile"
        onSubmit={(e) => {
          e.preventDefault();
          void saveStored();
        }}
      >
        <label>
          Profile name
          <input
            name="profile-name"
            required
            pattern={NAME_PATTERN}
            maxLength={64}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        {connections && connections.length > 0 && (
          <label>
            Key
            <select
              name="profile-key"
              value={connection}
              onChange={(e) => setConnection(e.currentTarget.value)}
            >
              <option value="">The settings' key and base URL</option>
              {connections.map((c) => (
                <option key={c.id} value={c.id}>
                  Shared: {c.display_name}
                </option>
              ))}
            </select>
          </label>
        )}
        <ErrorNote error={error ?? loadError} />
        <button type="submit">Add profile</button>
      </form>
      {connections && (
        <SharedKeys
          connections={connections}
          onChange={async () => Promise.all([loadConnections(), load()]).then(() => undefined)}
        />
      )}
    </section>
  );
}
