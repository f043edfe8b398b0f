// The V1 sandboxes: each with its status and its conversations; pause, resume, delete.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../api.js';
import { ErrorNote, Link, timeAgo } from '../ui.js';

interface Sandbox {
  id: string;
  status: string;
  sandbox_spec_id: string;
  created_at: string;
}
interface AppConversation {
  id: string;
  sandbox_id: string;
  title: string | null;
}

export function SandboxesPage() {
  const [sandboxes, setSandboxes] = useState<Sandbox[] | null>(null);
  const [conversations, setConversations] = useState<AppConversation[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [unavailable, setUnavailable] = useState(false);

  const load = async () => {
    try {
      const [page, apps] = await Promise.all([
        api<{ items: Sandbox[] }>('/api/v1/sandboxes/search?limit=100'),
        api<{ items: AppConversation[] }>('/api/v1/app-conversations/search?limit=100'),
      ]);
      setSandboxes(page.items);
      setConversations(apps.items);
      setError(null);
    } catch (e) {
      // A server without the control plane (an agent server in a sandbox) has no /api/v1.
      if (e instanceof ApiError && e.status === 404) setUnavailable(true);
      else setError(errorText(e));
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, 3000);
    return () => clearInterval(timer);
  }, []);

  const act = async (id: string, action: 'pause' | 'resume' | 'delete') => {
    try {
      if (action === 'delete') await api(`/api/v1/sandboxes/${id}`, { method: 'DELETE' });
      else await api(`/api/v1/sandboxes/${id}/${action}`, { method: 'POST' });
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (unavailable) return <p>This server runs no sandboxes (it is an agent server inside one).</p>;
  return (
    <section>
      <h1>Sandboxes</h1>
      <ErrorNote error={error} />
      {sandboxes?.length === 0 && (
        <p class="muted">No sandboxes. Conversations started through /api/v1 run in one.</p>
      )}
      <ul class="list sandboxes">
        {(sandboxes ?? []).map((s) => (
          <li key={s.id} class="wrap" data-sandbox-id={s.id}>
            <span class="grow">
              <code>{s.id}</code> <span class={`badge sandbox-${s.status}`}>{s.status.toLowerCase()}</span>
              <span class="meta">
                {s.sandbox_spec_id} · created {timeAgo(s.created_at)}
              </span>
              <span class="meta">
                {conversations
                  .filter((c) => c.sandbox_id === s.id)
                  .map((c) => (
                    <Link key={c.id} href={`/ui/conversations/${c.id}`}>
                      {c.title || c.id}
                    </Link>
                  ))}
              </span>
            </span>
            {s.status === 'RUNNING' && (
              <button type="button" onClick={() => void act(s.id, 'pause')}>
                Pause
              </button>
            )}
            {s.status === 'PAUSED' && (
              <button type="button" onClick={() => void act(s.id, 'resume')}>
                Resume
              </button>
            )}
            <button type="button" class="danger" onClick={() => void act(s.id, 'delete')}>
              Delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
