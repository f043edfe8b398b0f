// Agent profiles (/api/agent-profiles): a named agent to start conversations with — the LLM profile
// it runs on, words added to its instructions, which MCP servers and skills it gets. The New page
// starts one (agent_profile_id); "Use" marks one active for OpenHands' clients. They hold no secret.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { AgentProfileList } from '../types.js';
import { ErrorNote, UseAndDelete, useAction, useFetched } from '../ui.js';
import { useProfiles } from './profiles.js';

const PATH = '/api/agent-profiles';
const path = (name: string) => `${PATH}/${encodeURIComponent(name)}`;

/** The caller's agent profiles (null while loading; none from a server without the route) and a reload. */
export function useAgentProfiles(): [AgentProfileList | null, () => Promise<void>] {
  const [list, load] = useFetched<AgentProfileList>(PATH, { profiles: [], active_agent_profile_id: null });
  return [list, load];
}

/** A comma-separated list as names (blanks dropped). */
const names = (text: string) =>
  text
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);

export function AgentProfiles() {
  const [list, load] = useAgentProfiles();
  const [llmProfiles] = useProfiles();
  const llmNames = llmProfiles?.profiles.map((p) => p.name) ?? [];
  const [name, setName] = useState('');
  const [llmProfile, setLlmProfile] = useState('');
  const [suffix, setSuffix] = useState('');
  const [mcp, setMcp] = useState<'all' | 'none'>('all');
  const [skillsOut, setSkillsOut] = useState('');
  const { act, error } = useAction(load);
  const save = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api(path(name), {
        method: 'POST',
        body: {
          llm_profile_ref: llmProfile || llmProfiles?.profiles[0]?.name,
          system_message_suffix: suffix.trim() || null,
          mcp_server_refs: mcp === 'all' ? null : [],
          disabled_skills: names(skillsOut),
        },
      });
      setName('');
      setSuffix('');
      setSkillsOut('');
    });
  };
  return (
    <section class="profiles agent-profiles">
      <h2>Agent profiles</h2>
      <p class="muted">
        A named agent to start conversations with (New page): the LLM profile it runs on, words added to its
        instructions, and whether it gets your MCP servers.
      </p>
      <ul class="list" aria-label="Agent profiles">
        {list?.profiles.map((p) => (
          <li key={p.id} class="wrap">
            <span class="grow">
              <strong>{p.name}</strong> <span class="muted">on {p.llm_profile_ref}</span>{' '}
              {llmProfiles && !llmNames.includes(p.llm_profile_ref ?? '') && (
                <span class="error">no such LLM profile: save one or change it</span>
              )}{' '}
              {p.mcp_server_refs?.length === 0 && <span class="muted">no MCP servers</span>}{' '}
              {list.active_agent_profile_id === p.id && <span class="badge status-finished">active</span>}
            </span>
            <UseAndDelete act={act} activate={`${PATH}/${p.id}/activate`} remove={path(p.name)} />
          </li>
        ))}
      </ul>
      {llmNames.length === 0 ? (
        <p class="muted">Save an LLM profile first: an agent profile runs on one.</p>
      ) : (
        <form class="stack" aria-label="Save an agent profile" onSubmit={save}>
          <label>
            Agent profile name
            <input
              name="agent-profile-name"
              required
              pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,63}"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <label>
            Runs on
            <select
              name="agent-profile-llm"
              value={llmProfile}
              onChange={(e) => setLlmProfile(e.currentTarget.value)}
            >
              {llmNames.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label>
            Added instructions
            <textarea
              name="agent-profile-suffix"
              rows={3}
              value={suffix}
              onInput={(e) => setSuffix(e.currentTarget.value)}
            />
          </label>
          <label>
            MCP servers
            <select
              name="agent-profile-mcp"
              value={mcp}
              onChange={(e) => setMcp(e.currentTarget.value as 'all' | 'none')}
            >
              <option value="all">All of mine</option>
              <option value="none">None</option>
            </select>
          </label>
          <label>
            Skills to leave out (comma-separated names)
            <input
              name="agent-profile-skills"
              value={skillsOut}
              onInput={(e) => setSkillsOut(e.currentTarget.value)}
            />
          </label>
          <ErrorNote error={error} />
          <button type="submit">Save agent profile</button>
        </form>
      )}
    </section>
  );
}
