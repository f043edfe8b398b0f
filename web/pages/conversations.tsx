// The conversation list: newest first, with live status (refreshed while the page is open), title
// and last update; a title search; delete (asked twice).
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { ConversationInfo } from '../types.js';
import { ErrorNote, Link, StatusBadge, timeAgo } from '../ui.js';

const REFRESH_MS = 2000;

export function ConversationsPage() {
  const [items, setItems] = useState<ConversationInfo[] | null>(null);
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const load = () =>
    api<{ items: ConversationInfo[] }>('/api/conversations/search?limit=100&sort_order=UPDATED_AT_DESC')
      .then((page) => {
        setItems(page.items);
        setError(null);
      })
      .catch((e: unknown) => setError(errorText(e)));
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const remove = async (id: string) => {
    setConfirming(null);
    try {
      await api(`/api/conversations/${id}`, { method: 'DELETE' });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const needle = query.trim().toLowerCase();
  const shown = (items ?? []).filter((c) => !needle || (c.title ?? '').toLowerCase().includes(needle));
  return (
    <section>
      <div class="row spread">
        <h1>Conversations</h1>
        <Link href="/ui/new" class="button">
          New conversation
        </Link>
      </div>
      <input
        type="search"
        placeholder="Search by title"
        aria-label="Search by title"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
      />
      <ErrorNote error={error} />
      {items === null && !error && <p class="muted">Loading…</p>}
      {items?.length === 0 && (
        <p class="muted">
          No conversations yet. <Link href="/ui/new">Start one</Link>.
        </p>
      )}
      <ul class="list conversations">
        {shown.map((c) => (
          <li key={c.id} data-conversation-id={c.id}>
            <Link href={`/ui/conversations/${c.id}`} class="grow">
              <span class="title">{c.title || 'Untitled conversation'}</span>
              <span class="meta">
                <StatusBadge status={c.execution_status} /> updated {timeAgo(c.updated_at)}
                {relations(c)}
              </span>
            </Link>
            {confirming === c.id ? (
              <span class="row">
                <button type="button" class="danger" onClick={() => void remove(c.id)}>
                  Delete it
                </button>
                <button type="button" onClick={() => setConfirming(null)}>
                  Keep
                </button>
              </span>
            ) : (
              <button
                type="button"
                aria-label={`Delete ${c.title || 'conversation'}`}
                onClick={() => setConfirming(c.id)}
              >
                Delete
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** How a conversation sits among others: under a parent, or with sub-conversations of its own. */
function relations(c: ConversationInfo): string {
  const subs = c.sub_conversation_ids?.length ?? 0;
  const parent = c.parent_conversation_id ? ' · sub-conversation' : '';
  return parent + (subs > 0 ? ` · ${subs} sub-conversation${subs > 1 ? 's' : ''}` : '');
}
