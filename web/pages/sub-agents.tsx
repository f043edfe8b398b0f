// The sub-agent types an agent may hand tasks to (POST /api/sub-agents): agentd's built-ins and the
// user's own definition files. A workspace's `.agents/agents` add to them in its conversations, so
// they are not listed here. Read when the section is opened.
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';

interface SubAgentInfo {
  name: string;
  description: string;
  tools: string[];
  model: string;
  is_builtin: boolean;
  source: string | null;
}

function TypeList() {
  const [types, setTypes] = useState<SubAgentInfo[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    api<{ agents: SubAgentInfo[] }>('/api/sub-agents', {
      method: 'POST',
      body: { load_project: false },
    }).then(
      (answer) => setTypes(answer.agents),
      (error) => setFailure(errorText(error)),
    );
  }, []);
  if (failure) return <p class="error">{failure}</p>;
  if (types === null) return <p class="muted">Loading…</p>;
  return (
    <ul class="list" aria-label="Sub-agent types">
      {types.map((t) => (
        <li key={t.name} class="wrap">
          <span class="grow">
            <strong>{t.name}</strong> <span class="muted">{t.description}</span>
          </span>
          <span class="muted">
            {t.tools.length > 0 ? t.tools.join(', ') : 'no tools'}
            {t.model !== 'inherit' ? ` · on ${t.model}` : ''} · {t.is_builtin ? 'built in' : 'yours'}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function SubAgentTypes() {
  const [open, setOpen] = useState(false);
  return (
    <section class="profiles sub-agent-types">
      <h2>Sub-agent types</h2>
      <p class="muted">
        What an agent with sub-agents (the setting above, or the task_tool_set tool) may hand a task to. Add
        your own as ~/.agents/agents/&lt;name&gt;.md (front matter: name, description, tools, model; the body
        is its instructions); a workspace's .agents/agents count in its conversations.
      </p>
      <details class="marketplace" onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Show them</summary>
        {open && <TypeList />}
      </details>
    </section>
  );
}
