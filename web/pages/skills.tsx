// Installed skills (/api/skills/install, /api/skills/installed): an AgentSkills folder (its SKILL.md)
// installed from a git repository or a folder on the server; while enabled it is one of the user's
// skills, which agent profiles and OpenHands' clients give the agent.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorNote, useAction } from '../ui.js';

interface InstalledSkill {
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  source: string;
}

const path = (name: string) => `/api/skills/installed/${encodeURIComponent(name)}`;

export function InstalledSkills() {
  const [skills, setSkills] = useState<InstalledSkill[] | null>(null);
  const [source, setSource] = useState('');
  const [folder, setFolder] = useState('');
  const load = () =>
    api<{ skills: InstalledSkill[] }>('/api/skills/installed').then(
      (list) => setSkills(list.skills),
      () => setSkills([]),
    );
  useEffect(() => void load(), []);
  const { act, error, busy } = useAction(load);
  const install = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const body = { source: source.trim(), ...(folder.trim() ? { repo_path: folder.trim() } : {}) };
      await api('/api/skills/install', { method: 'POST', body });
      setSource('');
      setFolder('');
    });
  };
  return (
    <section class="profiles installed-skills">
      <h2>Installed skills</h2>
      <p class="muted">
        Skills (a folder with a SKILL.md) from a git repository or a folder on this server; an enabled one is
        one of your skills, beside those in ~/.openhands/skills.
      </p>
      <ul class="list" aria-label="Installed skills">
        {skills?.map((s) => (
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
                  setSkills(skills.map((other) => (other.name === s.name ? { ...other, enabled } : other)));
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
      <form class="stack" aria-label="Install a skill" onSubmit={install}>
        <label>
          Skill source
          <input
            name="skill-source"
            required
            value={source}
            placeholder="github:owner/repo, https://…/repo.git or /path/to/skill"
            onInput={(e) => setSource(e.currentTarget.value)}
          />
        </label>
        <label>
          Folder in the repository (optional)
          <input name="skill-folder" value={folder} onInput={(e) => setFolder(e.currentTarget.value)} />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Installing…' : 'Install skill'}
        </button>
      </form>
    </section>
  );
}
