// One conversation, live: its events (the newest first, older ones on demand: use-history.ts),
// status, cost and tokens, controls (pause, resume, interrupt, switching the model to a saved
// profile, starting a sub-conversation, opening its working folder's files), a goal to work toward
// (goal.tsx), its parent and sub-conversations, approval of pending actions, and a composer for
// follow-ups.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { Timeline } from '../events/timeline.js';
import { useHistory } from '../events/use-history.js';
import { navigate } from '../router.js';
import type { ConversationInfo, Ev, GoalStatus, Stats } from '../types.js';
import { ErrorNote, Link, StatusBadge } from '../ui.js';
import { Approval } from './approval.js';
import { GoalPanel } from './goal.js';
import { useProfiles } from './profiles.js';
import { SubConversations, TaskConversations, useSubConversations } from './sub-conversations.js';

function totals(stats: Stats | undefined): { cost: number; prompt: number; completion: number } {
  let cost = 0;
  let prompt = 0;
  let completion = 0;
  for (const m of Object.values(stats?.usage_to_metrics ?? {})) {
    cost += m.accumulated_cost ?? 0;
    prompt += m.accumulated_token_usage?.prompt_tokens ?? 0;
    completion += m.accumulated_token_usage?.completion_tokens ?? 0;
  }
  return { cost, prompt, completion };
}

const ACTIVE = new Set(['running', 'waiting_for_confirmation']);

export function ConversationPage(props: { id: string }) {
  const { id } = props;
  const [info, setInfo] = useState<ConversationInfo | null>(null);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [stats, setStats] = useState<Stats | undefined>(undefined);
  const [goal, setGoal] = useState<GoalStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const bottom = useRef<HTMLDivElement>(null);

  const loadInfo = () =>
    api<ConversationInfo>(`/api/conversations/${id}`)
      .then((i) => {
        setInfo(i);
        // The stream owns status and stats once it has spoken: an answer that left the server before
        // the latest state update must not overwrite it.
        setStatus((s) => s ?? i.execution_status);
        setStats((s) => s ?? i.stats);
      })
      .catch((e: unknown) => setError(errorText(e)));

  const onStateUpdate = (event: Ev) => {
    const value = event.value as Record<string, unknown> | undefined;
    if (event.key === 'full_state' && value) {
      if (typeof value.execution_status === 'string') setStatus(value.execution_status);
      if (value.stats) setStats(value.stats as Stats);
      if (value.goal) setGoal(value.goal as GoalStatus);
    } else if (event.key === 'execution_status' && typeof event.value === 'string') {
      setStatus(event.value);
    } else if (event.key === 'stats' && value) {
      setStats(value as Stats);
    } else if (event.key === 'agent' && value) {
      setInfo((i) => i && { ...i, agent: value as ConversationInfo['agent'] });
    } else if (event.key === 'goal' && value) {
      setGoal(value as unknown as GoalStatus);
    }
  };
  // A refused socket may mean the key went stale: a REST read shows the sign-in page on a 401.
  const { history, version, streaming, link, earlier, loadEarlier } = useHistory(id, {
    onStateUpdate,
    onRefused: () => void loadInfo(),
  });
  useEffect(() => void loadInfo(), [id]);

  // The title is set after the first message; read it again when the status moves.
  useEffect(() => {
    if (status && info && status !== info.execution_status) void loadInfo();
  }, [status]);

  // New events and streamed text bring the page to its end; older ones, put in front, leave the view
  // where it was (the page grows above it).
  const newest = history.events[history.events.length - 1]?.id;
  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [newest, streaming]);
  const heightBelow = useRef<number | null>(null);
  const showEarlier = () => {
    heightBelow.current = document.documentElement.scrollHeight - window.scrollY;
    loadEarlier();
  };
  const first = history.events[0]?.id;
  useLayoutEffect(() => {
    if (heightBelow.current === null) return;
    window.scrollTo(0, document.documentElement.scrollHeight - heightBelow.current);
    heightBelow.current = null;
  }, [first]);

  const post = async (path: string, body?: unknown) => {
    setError(null);
    try {
      await api(`/api/conversations/${id}${path}`, { method: 'POST', body });
    } catch (e) {
      setError(errorText(e));
    }
  };
  // The working folder's files in a tab (its index.html first), through a link that carries its own
  // credential (the key stays in this page; the page there is sandboxed). The tab opens at once, as
  // the click allows, and goes there once the link is made.
  const openWorkspace = async () => {
    const tab = window.open('', '_blank');
    if (tab) tab.opener = null;
    try {
      const { url } = await api<{ url: string }>(`/api/conversations/${id}/workspace-link`, {
        method: 'POST',
      });
      if (tab) tab.location.href = url;
    } catch (e) {
      tab?.close();
      setError(errorText(e));
    }
  };
  const send = async (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return;
    setDraft('');
    await post('/events', { role: 'user', content: [{ type: 'text', text }], run: true });
  };

  const waiting = status === 'waiting_for_confirmation';
  const unanswered = history.unanswered();
  // A task under way makes its conversation and changes its status while this one stays `running`.
  const tasksRunning = unanswered.some((e) => e.tool_name === 'task');
  // Its new children are in the conversation's info: read again while a task runs.
  useEffect(() => {
    if (!tasksRunning) return;
    const timer = setInterval(() => void loadInfo(), 1500);
    return () => clearInterval(timer);
  }, [tasksRunning]);
  const children = useSubConversations(info?.sub_conversation_ids ?? [], tasksRunning);
  const pending = waiting ? unanswered : [];
  const sum = totals(stats);
  return (
    <section class="conversation">
      <div class="row spread wrap">
        <h1>{info?.title || 'Conversation'}</h1>
        <span class="row">
          <StatusBadge status={status} />
          <span class={`link link-${link.state}`} title="event stream">
            {link.state === 'live' ? 'live' : link.state === 'refused' ? link.detail : `${link.state}…`}
          </span>
        </span>
      </div>
      <p class="meta">
        {info?.workspace.working_dir && <code>{info.workspace.working_dir}</code>}{' '}
        {info?.agent?.llm?.model && <span>· {info.agent.llm.model}</span>}{' '}
        <span data-testid="usage">
          · ${sum.cost.toFixed(4)} · {sum.prompt.toLocaleString()} prompt + {sum.completion.toLocaleString()}{' '}
          completion tokens
        </span>
        {info?.parent_conversation_id && (
          <span>
            {' '}
            · sub-conversation of{' '}
            <Link href={`/ui/conversations/${info.parent_conversation_id}`}>its parent</Link>
          </span>
        )}
      </p>
      <SubConversations children={children} />
      <div class="row controls">
        {ACTIVE.has(status ?? '') ? (
          <button type="button" onClick={() => void post('/pause')}>
            Pause
          </button>
        ) : (
          <button type="button" onClick={() => void post('/run')} disabled={status === 'finished'}>
            Resume
          </button>
        )}
        <button type="button" onClick={() => void post('/interrupt')} disabled={!ACTIVE.has(status ?? '')}>
          Interrupt
        </button>
        <ModelSwitch onSwitch={(profile_name) => post('/switch_profile', { profile_name })} />
        <button type="button" onClick={() => navigate(`/ui/new?parent=${id}`)}>
          New sub-conversation
        </button>
        <button type="button" onClick={() => void openWorkspace()}>
          Open workspace
        </button>
      </div>
      <GoalPanel
        goal={goal}
        busy={ACTIVE.has(status ?? '')}
        onStart={(objective) => post('/goal', { objective })}
        onStop={() => post('/goal/stop')}
        onResume={() => post('/goal/resume')}
      />
      <ErrorNote error={error} />
      <TaskConversations.Provider value={children}>
        {history.hasEarlier && (
          <div class="earlier">
            <button type="button" onClick={showEarlier} disabled={earlier.loading}>
              {earlier.loading ? 'Loading earlier events…' : 'Load earlier events'}
            </button>
            <ErrorNote error={earlier.error} />
          </div>
        )}
        <Timeline history={history} version={version} waiting={waiting} streaming={streaming} />
      </TaskConversations.Provider>
      {pending.length > 0 && (
        <Approval
          actions={pending}
          onAnswer={(accept, reason) =>
            post('/events/respond_to_confirmation', reason ? { accept, reason } : { accept })
          }
        />
      )}
      <form class="composer" onSubmit={send}>
        <textarea
          name="message"
          aria-label="Message to the agent"
          rows={2}
          value={draft}
          placeholder="Send a message (Ctrl+Enter)"
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void send(e);
          }}
        />
        <button type="submit">Send</button>
      </form>
      <div ref={bottom} />
    </section>
  );
}

/** Switches the agent to one of the caller's saved LLM profiles, from its next LLM call on. */
function ModelSwitch(props: { onSwitch: (profile: string) => Promise<void> }) {
  const [list] = useProfiles();
  if (!list || list.profiles.length === 0) return null;
  return (
    <select
      aria-label="Switch the model"
      value=""
      onChange={(e) => {
        const name = e.currentTarget.value;
        if (name) void props.onSwitch(name);
      }}
    >
      <option value="">Switch the model…</option>
      {list.profiles.map((p) => (
        <option key={p.name} value={p.name}>
          {p.name} ({p.model})
        </option>
      ))}
    </select>
  );
}
