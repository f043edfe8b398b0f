// Small shared pieces: links, status badges, times, errors, the models a model field suggests.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from './api.js';
import { onLinkClick } from './router.js';

/** The id of the list of models a model field suggests (`<input list={KNOWN_MODELS}>`). */
export const KNOWN_MODELS = 'known-models';

/**
 * The models that work with an API key alone (/api/options/models), as the suggestions of the model
 * fields that name KNOWN_MODELS as their list; any other model is typed. None from a server without
 * that route: the fields still take any model.
 */
export function KnownModels() {
  const [models, setModels] = useState<string[]>([]);
  useEffect(() => void api<string[]>('/api/options/models').then(setModels, () => {}), []);
  return (
    <datalist id={KNOWN_MODELS}>
      {models.map((model) => (
        <option key={model} value={model} />
      ))}
    </datalist>
  );
}

export function Link(props: { href: string; class?: string; children: ComponentChildren }) {
  return (
    <a href={props.href} class={props.class} onClick={onLinkClick}>
      {props.children}
    </a>
  );
}

const STATUS_TEXT: Record<string, string> = {
  idle: 'idle',
  running: 'running',
  paused: 'paused',
  waiting_for_confirmation: 'waiting for confirmation',
  finished: 'finished',
  error: 'error',
  stuck: 'stuck',
  deleting: 'deleting',
};

export function StatusBadge(props: { status: string | undefined }) {
  const status = props.status ?? 'unknown';
  return <span class={`badge status-${status}`}>{STATUS_TEXT[status] ?? status}</span>;
}

export function timeAgo(iso: string | undefined | null): string {
  if (!iso) return '';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((Date.now() - then) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(then).toLocaleString();
}

export function ErrorNote(props: { error: string | null }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {props.error}
    </p>
  );
}

/**
 * A change made from a page, then `after` (a reload): `act(work)` runs both; a failure of either is
 * kept, in words, as `error` (shown with ErrorNote), and `busy` says one is under way.
 */
export function useAction(after: () => unknown) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
      await after();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return { act, error, busy };
}

/** A saved item's two actions: make it the one in use, and delete it (each a POST / DELETE, then `act`'s reload). */
export function UseAndDelete(props: {
  act: (work: () => Promise<unknown>) => Promise<void>;
  activate: string;
  remove: string;
}) {
  return (
    <>
      <button type="button" onClick={() => void props.act(() => api(props.activate, { method: 'POST' }))}>
        Use
      </button>
      <button type="button" onClick={() => void props.act(() => api(props.remove, { method: 'DELETE' }))}>
        Delete
      </button>
    </>
  );
}

/**
 * What GET `path` answers: null while it loads, `fallback` when it fails (a server without the route)
 * with why it failed; with a reload, and a setter for an answer a change already gave.
 */
export function useFetched<T>(
  path: string,
  fallback: T,
): [T | null, () => Promise<void>, (value: T) => void, string | null] {
  const [value, setValue] = useState<T | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const load = () =>
    api<T>(path).then(
      (answer) => {
        setValue(answer);
        setFailure(null);
      },
      (error) => {
        setValue(fallback);
        setFailure(errorText(error));
      },
    );
  useEffect(() => void load(), [path]);
  return [value, load, setValue, failure];
}
