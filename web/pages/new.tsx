// A new conversation: the task, the working folder, what it runs on (the settings' model unless
// changed, a saved LLM profile, or an agent profile) and confirmation mode; it starts at once and
// opens. Opened with ?parent=ID (a conversation's "New sub-conversation"), it starts a
// sub-conversation of that one, in its folder.
// The folders the user saved (on the server, /api/workspaces) are offered beside the folder field.
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { navigate } from '../router.js';
import type { ConversationInfo, Settings } from '../types.js';
import { ErrorNote, KNOWN_MODELS, KnownModels, Link } from '../ui.js';
import { useAgentProfiles } from './agent-profiles.js';
import { SavedFolderList, saveFolder, useSavedFolders } from './folders.js';
import { useProfiles } from './profiles.js';

const LAST_DIR = 'agentd.lastWorkingDir';

export function NewConversationPage(props: { parentId: string | null }) {
  const { parentId } = props;
  const [settings, setSettings] = useState<Settings | null>(null);
  const [task, setTask] = useState('');
  const [dir, setDir] = useState(localStorage.getItem(LAST_DIR) ?? '');
  // What the user chose, else (null) the settings' default: settings that load late never undo a choice.
  const [chosenModel, setModel] = useState<string | null>(null);
  const model = chosenModel ?? settings?.llm_model ?? '';
  const [profile, setProfile] = useState('');
  const [profiles] = useProfiles();
  const [agentProfile, setAgentProfile] = useState('');
  const [agentProfiles] = useAgentProfiles();
  const [chosenConfirm, setConfirm] = useState<boolean | null>(null);
  const confirm = chosenConfirm ?? settings?.confirmation_mode === true;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [parent, setParent] = useState<ConversationInfo | null>(null);
  const [folders, setFolders] = useSavedFolders();
  const [keepFolder, setKeepFolder] = useState(false);
  const folderSaved = folders?.some((f) => f.path === dir.trim()) ?? true;

  useEffect(() => {
    if (!parentId) return;
    api<ConversationInfo>(`/api/conversations/${parentId}`)
      .then((p) => {
        setParent(p);
        setDir(p.workspace.working_dir);
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [parentId]);

  useEffect(() => {
    api<Settings>('/api/settings')
      .then(setSettings)
      .catch((e: unknown) => setError(errorText(e)));
  }, []);

  const start = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Saved first: a folder that cannot be saved (500 saved already) is said before anything starts.
      if (keepFolder && !folderSaved) setFolders(await saveFolder(dir.trim()));
      const body: Record<string, unknown> = {
        workspace: { working_dir: dir.trim() },
        confirmation_policy: { kind: confirm ? 'AlwaysConfirm' : 'NeverConfirm' },
        initial_message: { role: 'user', content: [{ type: 'text', text: task }], run: true },
      };
      if (parent) body.parent_conversation_id = parent.id;
      // An agent profile says everything the agent runs on; an LLM profile brings its whole LLM
      // (agentd's llm_profile); else only a changed model is sent: the settings' key and base URL stay
      // with it (agentd's llm_model).
      if (agentProfile) body.agent_profile_id = agentProfile;
      else if (profile) body.llm_profile = profile;
      else if (model.trim() && model.trim() !== settings?.llm_model) body.llm_model = model.trim();
      const info = await api<ConversationInfo>('/api/conversations', { method: 'POST', body });
      if (!parent) localStorage.setItem(LAST_DIR, dir.trim());
      navigate(`/ui/conversations/${info.id}`);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>{parentId ? 'New sub-conversation' : 'New conversation'}</h1>
      {parent && (
        <p class="note">
          Under <Link href={`/ui/conversations/${parent.id}`}>{parent.title || parent.id.slice(0, 8)}</Link>,
          in its folder.
        </p>
      )}
      {settings && !settings.llm_model && (
        <p class="note">
          No model is set yet: choose one in <Link href="/ui/settings">Settings</Link>, or name it below.
        </p>
      )}
      <form class="stack" onSubmit={start}>
        <label>
          Task
          <textarea
            name="task"
            rows={5}
            required
            value={task}
            placeholder="What should the agent do?"
            onInput={(e) => setTask(e.currentTarget.value)}
          />
        </label>
        <label>
          Working folder
          <input
            name="working-dir"
            required
            value={dir}
            readOnly={parentId !== null}
            placeholder="/home/me/project"
            onInput={(e) => setDir(e.currentTarget.value)}
          />
        </label>
        {parentId === null && folders && (
          <SavedFolderList
            folders={folders}
            onChoose={setDir}
            onRemoved={(path) => setFolders({ workspaces: folders.filter((f) => f.path !== path) })}
          />
        )}
        {parentId === null && !folderSaved && dir.trim() !== '' && (
          <label class="check">
            <input
              type="checkbox"
              name="save-folder"
              checked={keepFolder}
              onChange={(e) => setKeepFolder(e.currentTarget.checked)}
            />
            Save this folder for next time
          </label>
        )}
        {agentProfiles && agentProfiles.profiles.length > 0 && (
          <label>
            Agent profile
            <select
              name="agent-profile"
              value={agentProfile}
              onChange={(e) => setAgentProfile(e.currentTarget.value)}
            >
              <option value="">None: the LLM below</option>
              {agentProfiles.profiles.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} (on {p.llm_profile_ref})
                </option>
              ))}
            </select>
          </label>
        )}
        {!agentProfile && profiles && profiles.profiles.length > 0 && (
          <label>
            LLM profile
            <select name="profile" value={profile} onChange={(e) => setProfile(e.currentTarget.value)}>
              <option value="">None: the model below</option>
              {profiles.profiles.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name} ({p.model})
                </option>
              ))}
            </select>
          </label>
        )}
        {!profile && !agentProfile && (
          <label>
            Model
            <input
              name="model"
              list={KNOWN_MODELS}
              value={model}
              placeholder="provider/model"
              onInput={(e) => setModel(e.currentTarget.value)}
            />
            <KnownModels />
          </label>
        )}
        <label class="check">
          <input
            type="checkbox"
            name="confirmation-mode"
            checked={confirm}
            onChange={(e) => setConfirm(e.currentTarget.checked)}
          />
          Ask me before each action (confirmation mode)
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Starting…' : 'Start'}
        </button>
      </form>
    </section>
  );
}
