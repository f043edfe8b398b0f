// The MCP servers of the settings: listed by kind, added, removed (each change saved at once), and
// tested: the server connects to a saved one (its stored keys) or to the one in the form before it is
// added (POST /api/mcp/test), and lists its tools.
import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { McpConfig } from '../types.js';
import { ErrorNote } from '../ui.js';

type Kind = 'stdio' | 'sse' | 'shttp';
const LISTS = { stdio: 'stdio_servers', sse: 'sse_servers', shttp: 'shttp_servers' } as const;
const KIND_TEXT: Record<Kind, string> = { stdio: 'command', sse: 'SSE', shttp: 'HTTP' };

interface TestResult {
  ok: boolean;
  tools?: string[];
  error?: string;
}

export function McpServers(props: { config: McpConfig; onChange: (config: McpConfig) => Promise<void> }) {
  const [kind, setKind] = useState<Kind>('stdio');
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [args, setArgs] = useState('');
  const [key, setKey] = useState('');
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
        {kind === 'stdio' && (
          <label>
            Name
            <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
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
        <ErrorNote error={error} />
        <span class="row">
          <button type="submit">Add server</button>
          <button type="button" disabled={!target.trim()} onClick={() => void testCandidate()}>
            Test before adding
          </button>
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

/** A remote server's row: its name when an OpenHands client saved it under one, then its URL. */
const remote = (s: { name?: string; url: string }) => (s.name ? `${s.name}: ${s.url}` : s.url);
