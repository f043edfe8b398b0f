// Installed skills and plugins (/api/skills/…, /api/plugins/…: install, installed): a folder installed
// from a git repository or a folder on the server, or picked from the marketplace (the server's
// extensions repository). An enabled skill is one of the user's skills (agent profiles and
// OpenHands' clients give them to the agent); an enabled plugin joins every conversation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, useAction, useFetched } from '../ui.js';

/** A marketplace entry: where to install it from (a plugin's ref and folder too). */
interface Offered {
  name: string;
  description: string | null;
  source: string;
  ref?: string | null;
  repo_path?: string | null;
  installed: boolean;
}

interface Installed {
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  source: string;
}

const KINDS = {
  skills: {
    title: 'Installed skills',
    about:
      'Skills (a folder with a SKILL.md) from a git repository or a folder on this server; an enabled one is one of your skills, beside those in ~/.openhands/skills.',
  },
  plugins: {
    title: 'Installed plugins',
    about:
      'Plugins (skills, commands, hooks and MCP servers in one folder) from a git repository or a folder on this server; an enabled one joins every conversation.',
  },
} as const;

export function InstalledExtensions(props: { kind: keyof typeof KINDS }) {
  const { kind } = props;
  const { title, about } = KINDS[kind];
  const one = kind === 'skills' ? 'skill' : 'plugin';
  const path = (name: string) => `/api/${kind}/installed/${encodeURIComponent(name)}`;
  const [answer, load, setAnswer] = useFetched<Record<string, Installed[]>>(`/api/${kind}/installed`, {});
  const items = answer ? (answer[kind] ?? []) : null;
  const setItems = (next: Installed[]) => setAnswer({ [kind]: next });
  const [source, setSource] = useState('');
  const [folder, setFolder] = useState('');
  const [browsing, setBrowsing] = useState(false);
  // The open marketplace's reload, so an install or removal shows there too.
  const reloadMarket = useRef<(() => Promise<void>) | null>(null);
  const { act, error, busy } = useAction(() => Promise.all([load(), reloadMarket.current?.()]));
  const install = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const body = { source: source.trim(), ...(folder.trim() ? { repo_path: folder.trim() } : {}) };
      await api(`/api/${kind}/install`, { method: 'POST', body });
      setSource('');
      setFolder('');
    });
  };
  return (
    <section class={`profiles installed-${kind}`}>
      <h2>{title}</h2>
      <p class="muted">{about}</p>
      <ul class="list" aria-label={title}>
        {items?.map((s) => (
          <li key={s.name} class="wrap">
            <span class="grow">
              <strong>{s.name}</strong> {s.version && <code>{s.version}</code>}{' '}
              <span class="muted">{s.description}</span>
            </span>
            <label class="check">
              <input
                type="checkbox"
                checked={s.enabled}
                aria-label={`${s.name} enabled`}
                onChange={(e) => {
                  const enabled = e.currentTarget.checked;
                  // Shown at once (the box would spring back until the list reloads), then stored.
                  setItems(items.map((other) => (other.name === s.name ? { ...other, enabled } : other)));
                  void act(() => api(path(s.name), { method: 'PATCH', body: { enabled } }));
                }}
              />
              enabled
            </label>
            <button type="button" onClick={() => void act(() => api(path(s.name), { method: 'DELETE' }))}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {/* Closed at first, and fetched when opened: the repository may be fetched, and offer dozens. */}
      <details class="marketplace" onToggle={(e) => setBrowsing(e.currentTarget.open)}>
        <summary>Marketplace</summary>
        {browsing && <Marketplace kind={kind} title={title} act={act} busy={busy} reload={reloadMarket} />}
      </details>
      <form class="stack" aria-label={`Install a ${one}`} onSubmit={install}>
        <label>
          Source
          <input
            name={`${one}-source`}
            required
            value={source}
            placeholder={`github:owner/repo, https://…/repo.git or /path/to/${one}`}
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </label>
        <label>
          Folder in the repository (optional)
          <input name={`${one}-folder`} value={folder} onInput={(e) => setFolder(e.currentTarget.value)} />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Installing…' : `Install ${one}`}
        </button>
      </form>
    </section>
  );
}

/** What the server's extensions repository offers of `kind`, each installed with one click. */
function Marketplace(props: {
  kind: keyof typeof KINDS;
  title: string;
  act: (work: () => Promise<unknown>) => Promise<void>;
  busy: boolean;
  reload: { current: (() => Promise<void>) | null };
}) {
  const { kind, act, busy } = props;
  const [market, load, , failure] = useFetched<Record<string, Offered[]>>(`/api/${kind}/marketplace`, {});
  useEffect(() => {
    props.reload.current = load;
    return () => {
      props.reload.current = null;
    };
  });
  const offered = market ? (market[kind] ?? []) : null;
  if (failure) return <p class="muted">The marketplace cannot be had: {failure}</p>;
  if (offered === null) return <p class="muted">Loading…</p>;
  if (offered.length === 0) return <p class="muted">The server's extensions repository offers no {kind}.</p>;
  return (
    <ul class="list" aria-label={props.title.replace('Installed', 'Offered')}>
      {offered.map((o) => (
        <li key={o.name} class="wrap">
          <span class="grow">
            <strong>{o.name}</strong> <span class="muted">{o.description}</span>
          </span>
          {o.installed ? (
            <span class="muted">installed</span>
          ) : (
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void act(() =>
                  api(`/api/${kind}/install`, {
                    method: 'POST',
                    body: { source: o.source, ref: o.ref ?? null, repo_path: o.repo_path ?? null },
                  }),
                )
              }
            >
              Install
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
