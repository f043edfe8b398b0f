// Settings, through the same /api/settings as every client: the LLM (the key is write-only: shown as
// set or not set), the web search key (write-only too), confirmation mode, iterations, the condenser,
// the LLM profiles (profiles.tsx), the agent profiles (agent-profiles.tsx), the installed skills and
// plugins (installed.tsx) and the MCP servers (add, remove, test).
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { McpConfig, Settings } from '../types.js';
import { ErrorNote, KNOWN_MODELS, KnownModels } from '../ui.js';
import { AgentProfiles } from './agent-profiles.js';
import { InstalledExtensions } from './installed.js';
import { McpServers } from './mcp.js';
import { LlmProfiles } from './profiles.js';
import { SubAgentTypes } from './sub-agents.js';

export function SettingsPage() {
  const [stored, setStored] = useState<Settings | null>(null);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [newKey, setNewKey] = useState('');
  const [clearKey, setClearKey] = useState(false);
  const [newSearchKey, setNewSearchKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const load = () =>
    api<Settings>('/api/settings')
      .then((s) => {
        setStored(s);
        setDraft(s);
      })
      .catch((e: unknown) => setError(errorText(e)));
  useEffect(() => void load(), []);

  if (!draft || !stored) return <ErrorNote error={error} />;
  const set = (patch: Partial<Settings>) => {
    setSaved(false);
    setDraft({ ...draft, ...patch });
  };
  /** A typed key: what Save sends, and the form no longer reads as saved. */
  const typed = (keep: (value: string) => void) => (value: string) => {
    setSaved(false);
    keep(value);
  };

  /**
   * POST the whole record: a null LLM key keeps the stored one, "" clears it; a null search key keeps
   * the stored one (agentd's POST semantics, OpenHands').
   */
  const save = async (next: Settings = draft) => {
    setError(null);
    try {
      await api('/api/settings', {
        method: 'POST',
        body: {
          ...next,
          llm_api_key: clearKey ? '' : newKey || null,
          search_api_key: newSearchKey.trim() || null,
        },
      });
      setNewKey('');
      setNewSearchKey('');
      setClearKey(false);
      await load();
      setSaved(true);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));
  return (
    <section>
      <h1>Settings</h1>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <fieldset>
          <legend>LLM</legend>
          <label>
            Model
            <input
              name="llm-model"
              list={KNOWN_MODELS}
              value={draft.llm_model ?? ''}
              placeholder="anthropic/claude-sonnet-4-6"
              onInput={(e) => set({ llm_model: e.currentTarget.value || null })}
            />
            <KnownModels />
          </label>
          <label>
            Base URL
            <input
              name="llm-base-url"
              value={draft.llm_base_url ?? ''}
              placeholder="(the provider's)"
              onInput={(e) => set({ llm_base_url: e.currentTarget.value || null })}
            />
          </label>
          <KeyField
            label="API key"
            name="llm-api-key"
            testId="key-state"
            isSet={stored.llm_api_key_set === true}
            value={newKey}
            placeholder="paste a key"
            onInput={typed(setNewKey)}
          />
          {stored.llm_api_key_set && (
            <label class="check">
              <input
                type="checkbox"
                checked={clearKey}
                onChange={(e) => {
                  setSaved(false);
                  setClearKey(e.currentTarget.checked);
                }}
              />
              Remove the stored key
            </label>
          )}
        </fieldset>
        <fieldset>
          <legend>Web search</legend>
          <KeyField
            label="Tavily API key"
            name="search-api-key"
            testId="search-key-state"
            isSet={stored.search_api_key_set === true}
            value={newSearchKey}
            placeholder="tvly-…"
            onInput={typed(setNewSearchKey)}
          />
          <span class="meta">With a key, the agent searches the web through Tavily's MCP server.</span>
        </fieldset>
        <fieldset>
          <legend>Agent</legend>
          <label class="check">
            <input
              type="checkbox"
              name="confirmation-mode"
              checked={draft.confirmation_mode === true}
              onChange={(e) => set({ confirmation_mode: e.currentTarget.checked })}
            />
            Confirmation mode (ask before each action)
          </label>
          <label>
            Max iterations
            <input
              type="number"
              min={1}
              name="max-iterations"
              value={draft.max_iterations ?? ''}
              placeholder="default"
              onInput={(e) => set({ max_iterations: numberOrNull(e.currentTarget.value) })}
            />
          </label>
          <label class="check">
            <input
              type="checkbox"
              name="condenser"
              checked={draft.enable_default_condenser}
              onChange={(e) => set({ enable_default_condenser: e.currentTarget.checked })}
            />
            Condense long histories (summarize old events)
          </label>
          {draft.enable_default_condenser && (
            <label>
              Condense above this many events
              <input
                type="number"
                min={20}
                name="condenser-max-size"
                value={draft.condenser_max_size ?? ''}
                placeholder="default (120)"
                onInput={(e) => set({ condenser_max_size: numberOrNull(e.currentTarget.value) })}
              />
            </label>
          )}
          <label class="check">
            <input
              type="checkbox"
              name="sub-agents"
              checked={draft.enable_sub_agents === true}
              onChange={(e) => set({ enable_sub_agents: e.currentTarget.checked })}
            />
            Sub-agents (the agent may hand tasks to sub-agents that work on their own)
          </label>
        </fieldset>
        <ErrorNote error={error} />
        <div class="row">
          <button type="submit">Save</button>
          {saved && (
            <span class="ok" role="status">
              Saved
            </span>
          )}
        </div>
      </form>
      <LlmProfiles onChange={() => void load()} />
      <AgentProfiles />
      <SubAgentTypes />
      <InstalledExtensions kind="skills" />
      <InstalledExtensions kind="plugins" />
      <McpServers
        config={stored.mcp_config ?? {}}
        onChange={(mcp_config: McpConfig) => save({ ...stored, mcp_config })}
        onSaved={async () => {
          await load();
        }}
      />
    </section>
  );
}

/** A write-only key: shown as set or not set; what is typed replaces the stored one on Save. */
function KeyField(props: {
  label: string;
  name: string;
  testId: string;
  isSet: boolean;
  value: string;
  /** Shown while nothing is stored. */
  placeholder: string;
  onInput: (value: string) => void;
}) {
  return (
    <label>
      {props.label}{' '}
      <span class={`badge ${props.isSet ? 'status-finished' : ''}`} data-testid={props.testId}>
        {props.isSet ? 'set' : 'not set'}
      </span>
      <input
        type="password"
        name={props.name}
        autocomplete="off"
        value={props.value}
        placeholder={props.isSet ? 'leave empty to keep the stored key' : props.placeholder}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  );
}
