// The steps of an app conversation's start, OpenHands' order: WORKING → WAITING_FOR_SANDBOX →
// PREPARING_REPOSITORY → RUNNING_SETUP_SCRIPT → SETTING_UP_GIT_HOOKS → STARTING_CONVERSATION →
// READY, or ERROR with the reason from any step. Each step is saved before it runs, so a client
// polling the task sees where it is. Unlike OpenHands, a paused (or MISSING) sandbox given by id is
// resumed and used.
import { randomUUID } from 'node:crypto';
import { condenserFromSettings } from '../conversation/condenser.js';
import { defaultToolNames, type StartConversationRequest } from '../conversation/schemas.js';
import {
  analyzerFromSettings,
  budgetOf,
  DEFAULT_MAX_ITERATIONS,
  policyFromSettings,
} from '../conversation/start-request.js';
import { dashedUuid } from '../events/index.js';
import type { SandboxRecord, SandboxService } from '../sandbox/index.js';
import { SandboxError } from '../sandbox/index.js';
import {
  type EffectiveSettings,
  type SettingsService,
  settingsLlm,
  withSearchServer,
} from '../settings/index.js';
import type { Store } from '../store/index.js';
import { AgentServerClient } from './agent-client.js';
import type { AppFields, MirrorState, StartTaskRecord } from './records.js';
import type { StartTaskStatus } from './schemas.js';

export interface PipelineDeps {
  store: Store;
  sandboxes: SandboxService;
  settings: SettingsService;
  /** The web search server a user's search_api_key connects; default Tavily's. */
  searchMcpUrl?: string;
  /** Called once the mirror exists, to start syncing its events. */
  mirrored(conversationId: string, sandbox: SandboxRecord): void;
}

const SETUP_SCRIPT_TIMEOUT_MS = 600_000;
/** OpenHands' own defaults for the agent's commits (its config, and what its settings form saves). */
const DEFAULT_GIT_USER_NAME = 'openhands';
const DEFAULT_GIT_USER_EMAIL = 'openhands@all-hands.dev';

/** Single-quotes a value for bash. */
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** The user's GitHub token and its host, as the settings keep them (opened). */
type GitHubToken = { token?: string | null; host?: string | null } | null | undefined;

/**
 * A clone URL for `owner/repo` on the given provider; URLs and paths are used as they are. On GitHub
 * (the default), the user's token signs the clone in (a private repository), at its host (GitHub
 * Enterprise), as OpenHands' authenticated URL does.
 */
export function repositoryUrl(
  repository: string,
  provider: string | null | undefined,
  github?: GitHubToken,
): string {
  if (/^(?:[a-z+]+:\/\/|git@|\/)/.test(repository)) return repository;
  if (provider === 'gitlab') return `https://gitlab.com/${repository}.git`;
  if (provider === 'bitbucket') return `https://bitbucket.org/${repository}.git`;
  const signIn = github?.token ? `${encodeURIComponent(github.token)}@` : '';
  return `https://${signIn}${github?.host || 'github.com'}/${repository}.git`;
}

export class StartPipeline {
  constructor(private readonly deps: PipelineDeps) {}

  async run(task: StartTaskRecord, onSave: (task: StartTaskRecord) => void): Promise<StartTaskRecord> {
    const tasks = this.deps.store.documents<StartTaskRecord>('start_tasks');
    const save = async (changes: Partial<StartTaskRecord>) => {
      task = { ...task, ...changes, updatedAt: new Date().toISOString() };
      if (changes.appConversationId) task.ref = changes.appConversationId;
      await tasks.put(task);
      onSave(task);
      return task;
    };
    const step = (status: StartTaskStatus, changes: Partial<StartTaskRecord> = {}) =>
      save({ status, ...changes });
    // A sandbox this start made, until a conversation is started in it: a start that fails before
    // then deletes it, or each failed start (a mistyped repository, say) would hold a sandbox of the
    // user's limit with nothing in it. A sandbox the request named is the user's and stays.
    let made: SandboxRecord | null = null;
    try {
      const request = task.request;
      const settings = await this.deps.settings.getEffective(task.ownerId);
      const model = request.llm_model ?? settings?.llm_model;
      if (!model) {
        throw new SandboxError(
          'No LLM model: set llm_model in the request, or POST /api/settings with llm_model first',
        );
      }

      let sandbox = await this.sandbox(task);
      if (!task.request.sandbox_id) made = sandbox;
      await step('WAITING_FOR_SANDBOX', { sandboxId: sandbox.id });
      sandbox = await this.deps.sandboxes.settled(task.ownerId, sandbox.id);
      if (sandbox.status !== 'RUNNING' || !sandbox.agentUrl) {
        throw new SandboxError(sandbox.detail ?? `Sandbox ${sandbox.id} is ${sandbox.status}`);
      }

      await step('PREPARING_REPOSITORY');
      const github = settings?.secrets_store?.provider_tokens?.github;
      const workingDir = await this.prepareRepository(sandbox, request, github);
      await this.setGitIdentity(sandbox, workingDir, settings);
      await step('RUNNING_SETUP_SCRIPT');
      // A failing setup script does not stop the start (as in OpenHands); the agent can look at it.
      await this.exec(
        sandbox,
        workingDir,
        'if [ -f .openhands/setup.sh ]; then chmod +x .openhands/setup.sh && source .openhands/setup.sh; fi',
        SETUP_SCRIPT_TIMEOUT_MS,
      );
      await step('SETTING_UP_GIT_HOOKS');
      await this.installPreCommitHook(sandbox, workingDir);

      made = null;
      await step('STARTING_CONVERSATION', { agentServerUrl: sandbox.agentUrl });
      const conversationId = await this.startConversation(task, sandbox, workingDir, model, settings);
      return await step('READY', { appConversationId: conversationId });
    } catch (error) {
      if (made) await this.deps.sandboxes.delete(task.ownerId, made.id).catch(() => false);
      return save({ status: 'ERROR', detail: (error as Error).message || String(error) });
    }
  }

  /** The sandbox of the request (resumed when needed), or a new one. */
  private async sandbox(task: StartTaskRecord): Promise<SandboxRecord> {
    const { sandboxes } = this.deps;
    const id = task.request.sandbox_id;
    if (!id) return sandboxes.start(task.ownerId);
    const sandbox = await sandboxes.get(task.ownerId, id);
    if (!sandbox) throw new SandboxError(`Sandbox not found: ${id}`);
    if (sandbox.status !== 'RUNNING' && sandbox.status !== 'STARTING')
      await sandboxes.resume(task.ownerId, id);
    return sandbox;
  }

  private async exec(sandbox: SandboxRecord, cwd: string, command: string, timeoutMs = 120_000) {
    return this.deps.sandboxes.exec(sandbox, command, { cwd, timeoutMs });
  }

  /** Clones the selected repository (or makes the workspace a git repository); returns the working dir. */
  private async prepareRepository(
    sandbox: SandboxRecord,
    request: StartTaskRecord['request'],
    github: GitHubToken,
  ): Promise<string> {
    // Paths here are the sandbox's own (/workspace/project in a bwrap sandbox).
    const base = this.deps.sandboxes.workingDir(sandbox);
    await this.exec(sandbox, '/', `mkdir -p ${quote(base)}`);
    const repository = request.selected_repository;
    if (!repository) {
      // A git repository lets the agent (and the UI's diff views) track changes; without git, skip it.
      await this.exec(sandbox, base, 'command -v git >/dev/null && { [ -d .git ] || git init -q; } || true');
      return base;
    }
    // The folder is the repository's last segment, unless git would read it as an option or as `.`/`..`.
    const last =
      repository
        .replace(/\.git$/, '')
        .split('/')
        .pop() ?? '';
    const name = last === '' || last === '.' || last === '..' || last.startsWith('-') ? 'repository' : last;
    const dir = `${base}/${name}`;
    const clone = await this.exec(
      sandbox,
      base,
      `[ -d ${quote(name)}/.git ] || git clone --quiet -- ${quote(repositoryUrl(repository, request.git_provider, github))} ${quote(name)}`,
      600_000,
    );
    if (clone.exitCode !== 0) {
      // git may echo the URL it was given: the token never reaches the task's detail.
      const output = github?.token
        ? clone.output.replaceAll(encodeURIComponent(github.token), '***')
        : clone.output;
      throw new SandboxError(`Cloning ${repository} failed: ${output.trim()}`);
    }
    const branch = request.selected_branch;
    const checkout = branch
      ? `git checkout --quiet ${quote(branch)}`
      : `git checkout --quiet -b openhands-workspace-${randomUUID().slice(0, 8)}`;
    const result = await this.exec(sandbox, dir, checkout);
    if (result.exitCode !== 0)
      throw new SandboxError(`Checking out ${branch ?? 'a work branch'} failed: ${result.output.trim()}`);
    return dir;
  }

  /**
   * The user's git name and email (OpenHands' defaults when unset) as the repository's own identity,
   * so the agent's commits carry them. Repository-local, not --global: a process sandbox shares this
   * machine's HOME, whose git config is the host user's. Without git or a repository, nothing to do.
   */
  private async setGitIdentity(sandbox: SandboxRecord, dir: string, settings: EffectiveSettings | null) {
    const name = settings?.git_user_name?.trim() || DEFAULT_GIT_USER_NAME;
    const email = settings?.git_user_email?.trim() || DEFAULT_GIT_USER_EMAIL;
    await this.exec(
      sandbox,
      dir,
      `[ -d .git ] && git config user.name ${quote(name)} && git config user.email ${quote(email)} || true`,
    );
  }

  /** The repository's .openhands/pre-commit.sh as its git pre-commit hook; an existing hook is kept as pre-commit.local. */
  private async installPreCommitHook(sandbox: SandboxRecord, dir: string): Promise<void> {
    await this.exec(
      sandbox,
      dir,
      [
        'if [ -f .openhands/pre-commit.sh ] && [ -d .git ]; then',
        '  mkdir -p .git/hooks',
        '  if [ -f .git/hooks/pre-commit ] && ! cmp -s .git/hooks/pre-commit .openhands/pre-commit.sh; then',
        '    mv .git/hooks/pre-commit .git/hooks/pre-commit.local',
        '  fi',
        '  cp .openhands/pre-commit.sh .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit',
        'fi',
      ].join('\n'),
    );
  }

  private async startConversation(
    task: StartTaskRecord,
    sandbox: SandboxRecord,
    workingDir: string,
    model: string,
    settings: EffectiveSettings | null,
  ): Promise<string> {
    const request = task.request;
    const client = new AgentServerClient(sandbox.agentUrl!, this.deps.sandboxes.sessionKey(sandbox));
    // The agent server reads MCP servers from its user's settings, so the user's list goes there, with
    // the web search of their search key: each start replaces what an earlier one stored in the sandbox.
    const mcp_config = withSearchServer(
      settings?.mcp_config,
      settings?.search_api_key,
      this.deps.searchMcpUrl,
    );
    await client.storeSettings({ mcp_config: mcp_config ?? null });
    const secrets: Record<string, { value: string; description?: string }> = {};
    for (const [name, secret] of Object.entries(settings?.secrets_store?.custom_secrets ?? {})) {
      if (secret?.secret)
        secrets[name] = {
          value: secret.secret,
          ...(secret.description ? { description: secret.description } : {}),
        };
    }
    // A connected GitHub account is the agent's too (to push, open pull requests): OpenHands' GIT_TOKEN,
    // and GITHUB_TOKEN, which GitHub's tools and OpenHands' skills read. A secret of the user's own by
    // either name stands.
    const github = settings?.secrets_store?.provider_tokens?.github?.token;
    for (const name of ['GIT_TOKEN', 'GITHUB_TOKEN']) {
      if (github && !secrets[name]) secrets[name] = { value: github, description: 'Your GitHub token' };
    }
    const conversationId = randomUUID();
    const tools =
      request.agent_type === 'plan'
        ? ['planning_file_editor', 'task_tracker']
        : defaultToolNames(settings?.enable_sub_agents);
    // The sandbox's agent server has settings of its own: what the user's settings decide goes with the request.
    const analyzer = analyzerFromSettings(settings?.security_analyzer);
    const body: StartConversationRequest = {
      agent: {
        kind: 'Agent',
        llm: { ...settingsLlm(settings, model)!, usage_id: 'agent' },
        tools: tools.map((name) => ({ name, params: {} })),
        condenser: condenserFromSettings(settings),
      },
      workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
      conversation_id: conversationId,
      confirmation_policy: policyFromSettings(settings?.confirmation_mode, analyzer),
      security_analyzer: analyzer,
      initial_message: request.initial_message ? { ...request.initial_message, run: true } : null,
      max_iterations: settings?.max_iterations ?? DEFAULT_MAX_ITERATIONS,
      max_budget_per_task: budgetOf(undefined, settings?.max_budget_per_task),
      stuck_detection: true,
      secrets,
      autotitle: true,
    };
    const info = await client.startConversation(body);
    const app: AppFields = {
      selected_repository: request.selected_repository ?? null,
      selected_branch: request.selected_branch ?? null,
      git_provider: request.git_provider ?? null,
      trigger: request.trigger ?? null,
      pr_number: request.pr_number ?? [],
      llm_model: model,
    };
    const state: MirrorState = {
      agent: info.agent as MirrorState['agent'],
      workspace: info.workspace as MirrorState['workspace'],
      persistence_dir: info.persistence_dir ?? '',
      max_iterations: info.max_iterations,
      stuck_detection: info.stuck_detection,
      confirmation_policy: info.confirmation_policy,
      security_analyzer: info.security_analyzer,
      activated_knowledge_skills: info.activated_knowledge_skills,
      invoked_skills: info.invoked_skills,
      blocked_actions: info.blocked_actions,
      blocked_messages: info.blocked_messages,
      last_user_message_id: info.last_user_message_id,
      stats: info.stats,
      // The mirror keeps no secret; the agent server holds them.
      secrets: {},
      agent_state: info.agent_state,
      autotitle: true,
      app,
    };
    const now = new Date().toISOString();
    await this.deps.store.conversations.create({
      id: conversationId,
      ownerId: task.ownerId,
      title: request.title?.trim() || info.title,
      tags: {},
      executionStatus: info.execution_status,
      state: state as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
      sandboxId: sandbox.id,
      parentId: request.parent_conversation_id ? dashedUuid(request.parent_conversation_id) : null,
    });
    this.deps.mirrored(conversationId, sandbox);
    return conversationId;
  }
}
