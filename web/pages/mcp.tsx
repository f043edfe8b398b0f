// The MCP servers of the settings: listed by kind, added, removed (each change saved at once), and
// tested: the server connects to a saved one (its stored keys) or to the one in the form before it is
// added (POST /api/mcp/test), and lists its tools. A remote server may sign in with OAuth instead of
// a key (mcp-oauth.ts): its sign-in page opens in a new tab, and it is saved once that is done.
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { McpConfig, RemoteMcpServer } from '../types.js';
import { ErrorNote } from '../ui.js';
import { addWithOAuth, keyFor } from './mcp-oauth.js';

type Kind = 'stdio' | 'sse' | 'shttp';
const LISTS = { stdio: 'stdio_servers', sse: 'sse_servers', shttp: 'shttp_servers' } as const;
const KIND_TEXT: Record<Kind, string> = { stdio: 'command', sse: 'SSE', shttp: 'HTTP' };

interface TestResult {
  ok: boolean;
  tools?: string[];
  error?: string;
}

export function McpServers(props: {
  config: McpConfig;
  onChange: (config: McpConfig) => Promise<void>;
  /** Reads the settings again (a server saved by key, as the OAuth sign-in saves one). */
  onSaved: () => Promise<void>;
}) {
  const [kind, setKind] = useState<Kind>('stdio');
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [args, setArgs] = useState('');
  const [key, setKey] = useState('');
  const [useOAuth, setUseOAuth] = useState(false);
  const [signIn, setSignIn] = useState<{ note: string; link?: string } | null>(null);
  const [results, setResults] = useState<Record<string, TestResult | 'testing'>>({});
  const [candidate, setCandidate] = useState<TestResult | 'testing' | null>(null);
  const [error, setError] = useState<string | null>(null);

  const rows: { kind: Kind; index: number; label: string }[] = [
    ...(props.config.stdio_servers ?? []).map((s, index) => ({
      kind: 'stdio' as const,
      index,
      label: `${s.name}: ${[s.command, ...(s.args ?? [])].join(' ')}`,
    })),
    ...(props.config.sse_servers ?? []).map((s, index) => ({
      kind: 'sse' as const,
      index,
      label: remote(s),
    })),
    ...(props.config.shttp_servers ?? []).map((s, index) => ({
      kind: 'shttp' as const,
      index,
      label: remote(s),
    })),
  ];

  const change = async (next: McpConfig) => {
    setError(null);
    setResults({});
    try {
      await props.onChange(next);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const remove = (k: Kind, index: number) => {
    const list = [...(props.config[LISTS[k]] ?? [])];
    list.splice(index, 1);
    void change({ ...props.config, [LISTS[k]]: list });
  };
  const add = (event: Event) => {
    event.preventDefault();
    if (kind !== 'stdio' && useOAuth) return void addSigningIn();
    const list = [...(props.config[LISTS[kind]] ?? [])] as unknown[];
    if (kind === 'stdio')
      list.push({
        name: name.trim(),
        command: target.trim(),
        args: args.split(/\s+/).filter(Boolean),
        env: {},
      });
    else list.push({ url: target.trim(), api_key: key || null });
    setName('');
    setTarget('');
    setArgs('');
    setKey('');
    void change({ ...props.config, [LISTS[kind]]: list });
  };
  // Signs in with OAuth, then saves the server by key. The tab opens now, while the click is handled:
  // browsers block one opened after an await. It does not get this page as its opener.
  const addSigningIn = async () => {
    const tab = window.open('about:blank', '_blank');
    if (tab) tab.opener = null;
    setError(null);
    setSignIn({ note: 'Starting the sign-in…' });
    try {
      const server = { type: kind === 'sse' ? ('sse' as const) : ('http' as const), url: target.trim() };
      const tools = await addWithOAuth(keyFor(name, server.url), server, tab, {
        note: (note) => setSignIn((s) => ({ ...s, note })),
        link: (link) => setSignIn((s) => ({ note: s?.note ?? '', link })),
      });
      setSignIn({ note: `Signed in and added: ${tools.join(', ') || 'no tools'}` });
      setName('');
      setTarget('');
      setUseOAuth(false);
      await props.onSaved();
    } catch (e) {
      setSignIn(null);
      setError(errorText(e));
    }
  };
  // The form's server, as POST /api/mcp/test takes one (nothing is saved).
  const testCandidate = async () => {
    const server =
      kind === 'stdio'
        ? { type: 'stdio', command: target.trim(), args: args.split(/\s+/).filter(Boolean) }
        : {
            type: kind === 'sse' ? 'sse' : 'http',
            url: target.trim(),
            ...(key ? { auth: { strategy: 'bearer', value: key } } : {}),
          };
    setCandidate('testing');
    try {
      setCandidate(
        await api<TestResult>('/api/mcp/test', {
          method: 'POST',
          body: { name: name.trim() || undefined, server },
        }),
      );
    } catch (e) {
      setCandidate({ ok: false, error: errorText(e) });
    }
  };
  const test = async (k: Kind, index: number) => {
    const id = `${k}:${index}`;
    setResults((r) => ({ ...r, [id]: 'testing' }));
    try {
      const result = await api<TestResult>('/api/settings/mcp/test', {
        method: 'POST',
        body: { type: k, index },
      });
      setResults((r) => ({ ...r, [id]: result }));
    } catch (e) {
      setResults((r) => ({ ...r, [id]: { ok: false, error: errorText(e) } }));
    }
  };

  return (
    <section class="mcp">
      <h2>MCP servers</h2>
      {rows.length === 0 && <p class="muted">None.</p>}
      <ul class="list">
        {rows.map((row) => {
          const result = results[`${row.kind}:${row.index}`];
          return (
            <li key={`${row.kind}:${row.index}`} class="wrap">
              <span class="grow">
                <span class="badge">{KIND_TEXT[row.kind]}</span> <code>{row.label}</code>
                <Outcome result={result} />
              </span>
              <button type="button" onClick={() => void test(row.kind, row.index)}>
                Test
              </button>
              <button type="button" onClick={() => remove(row.kind, row.index)}>
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      <form class="stack" onSubmit={add} aria-label="Add an MCP server">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            <option value="stdio">Command (stdio)</option>
            <option value="shttp">HTTP (streamable)</option>
            <option value="sse">SSE</option>
          </select>
        </label>
        {(kind === 'stdio' || useOAuth) && (
          <label>
            Name{kind === 'stdio' ? '' : ' (optional: its host otherwise)'}
            <input required={kind === 'stdio'} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
        )}
        <label>
          {kind === 'stdio' ? 'Command' : 'URL'}
          <input required value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
        </label>
        {kind === 'stdio' ? (
          <label>
            Arguments (separated by spaces)
            <input value={args} onInput={(e) => setArgs(e.currentTarget.value)} />
          </label>
        ) : (
          <>
            <label class="check">
              <input
                type="checkbox"
                checked={useOAuth}
                onChange={(e) => setUseOAuth(e.currentTarget.checked)}
              />
              Sign in with OAuth
            </label>
            {!useOAuth && (
              <label>
                API key (optional)
                <input
                  type="password"
                  autocomplete="off"
                  value={key}
                  onInput={(e) => setKey(e.currentTarget.value)}
                />
              </label>
            )}
          </>
        )}
        <ErrorNote error={error} />
        {signIn && (
          <p class="muted" role="status">
            {signIn.note}{' '}
            {signIn.link && (
              <a href={signIn.link} target="_blank" rel="noopener noreferrer">
                Open the sign-in page
              </a>
            )}
          </p>
        )}
        <span class="row">
          <button type="submit">{kind !== 'stdio' && useOAuth ? 'Sign in and add' : 'Add server'}</button>
          {!(kind !== 'stdio' && useOAuth) && (
            <button type="button" disabled={!target.trim()} onClick={() => void testCandidate()}>
              Test before adding
            </button>
          )}
          <Outcome result={candidate ?? undefined} />
        </span>
      </form>
    </section>
  );
}

/** A test's outcome: its tools when the server works, else why not. */
function Outcome(props: { result: TestResult | 'testing' | undefined }) {
  const { result } = props;
  if (!result) return null;
  if (result === 'testing') return <span class="muted"> testing…</span>;
  return (
    <span class={result.ok ? 'ok' : 'error'} role="status">
      {' '}
      {result.ok ? `works: ${result.tools?.join(', ') || 'no tools'}` : result.error}
    </span>
  );
}

/** A remote server's row: its name when saved under one, then its URL, and whether it signed in with OAuth. */
const remote = (s: RemoteMcpServer) =>
  `${s.name ? `${s.name}: ${s.url}` : s.url}${s.oauth ? ' (OAuth)' : ''}`;
