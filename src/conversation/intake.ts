// How a client's words come into a conversation: a start (with its first message, if any) and a
// message. Both end in one append (message-append.ts); a start is atomic (see start).
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { userSkills } from '../agent/index.js';
import { dashedUuid } from '../events/index.js';
import { removeWorktree, type Worktree } from '../git/index.js';
import { loopTurns } from '../loop/index.js';
import {
  defaultSettings,
  type EffectiveSettings,
  ProfileNotFoundError,
  SecretKeyError,
} from '../settings/index.js';
import type { ConversationRecord } from '../store/index.js';
import { profiledStart } from './agent-profile.js';
import { BranchReads } from './branch-reads.js';
import { withContextSkills } from './context-skills.js';
import { InvalidConversationRequestError, nullIfNotFound } from './errors.js';
import { messageAppend } from './message-append.js';
import { startParent } from './parent.js';
import { startPlugins, withPlugins } from './plugins.js';
import type { ConversationRuntime } from './runtime.js';
import type { CreatedConversation } from './runtime-builder.js';
import { ConversationRuntimes } from './runtimes.js';
import type { ConversationInfo, SendMessageRequest, StartConversationRequest } from './schemas.js';
import { initialState, makeWorkspace, NO_SKILLS, refuseUnsupported, userMessage } from './start-request.js';
import { conversationWorktree, inWorktree } from './worktree.js';

export abstract class ConversationIntake extends ConversationRuntimes {
  /** Starts in progress by conversation id: a second start of one id waits for the first. */
  private readonly starting = new Map<string, Promise<unknown>>();
  /**
   * Runtimes whose active branch is known to hold the SystemPromptEvent (asked once per runtime, and
   * again after a navigation: an empty tree starts without one).
   */
  protected readonly prompted = new WeakSet<ConversationRuntime>();

  /**
   * Starts a conversation. Atomic: everything that can be checked is checked before anything is
   * stored (the LLM configuration, the initial message, tools, hooks, secrets); if a later step still
   * fails (storing it, building the runtime), the record, its events and the working directory it
   * made are removed again, so a failed start leaves nothing and a client may simply retry.
   */
  async start(
    userId: string,
    request: StartConversationRequest,
  ): Promise<{ info: ConversationInfo; created: boolean }> {
    // A start is about a millisecond of synchronous work (store, workspace, runtime, first events); a
    // burst of them read in one poll would run back to back. One per turn of the loop, ahead of agent steps.
    await loopTurns.turn('request');
    const id = request.conversation_id ? dashedUuid(request.conversation_id) : crypto.randomUUID();
    // One start per id at a time (a client retrying with its conversation_id): the second sees the
    // first's record, and undoing a failed start never touches another start's conversation.
    for (let pending = this.starting.get(id); pending; pending = this.starting.get(id))
      await pending.catch(() => undefined);
    const work = this.startOnce(userId, id, request);
    this.starting.set(id, work);
    try {
      return await work;
    } finally {
      if (this.starting.get(id) === work) this.starting.delete(id);
    }
  }

  private async startOnce(
    userId: string,
    id: string,
    request: StartConversationRequest,
  ): Promise<{ info: ConversationInfo; created: boolean }> {
    // Only a client's conversation_id can be taken; one made here is a random UUID, new.
    const existing = request.conversation_id ? await this.store.conversations.get(id) : null;
    if (existing) {
      if (existing.ownerId !== userId)
        throw new InvalidConversationRequestError(
          ['body', 'conversation_id'],
          'Conversation id already in use',
        );
      return { info: await this.infoOf(existing), created: false };
    }
    refuseUnsupported(request);
    const home = this.options.skillsHome ?? homedir();
    const profiled = await profiledStart(this.options.settings, userId, request, home);
    request = profiled.request;
    const parentId = await startParent(id, request, (parent) =>
      this.get(userId, parent).catch(nullIfNotFound),
    );
    if (request.initial_message) userMessage(request.initial_message, NO_SKILLS, ['body', 'initial_message']);
    // Fetched (a clone, maybe) after the cheap checks and before anything is stored: a plugin that
    // cannot be had is a 422, and nothing is made.
    const plugins = await startPlugins(request.plugins, join(this.options.dataDir, 'plugins'), home);
    for (const { plugin } of plugins) for (const line of plugin.warnings) this.logFor(id).warn({}, line);
    // Read once: the agent (when the request has none), the defaults and the runtime (its MCP
    // servers) all come from it.
    const effective = await this.settingsFor(userId, request);
    const workingDir = request.workspace.working_dir;
    // The conversation's own folder is made by the first tool that writes there (the task list, a
    // long output saved whole, a recording), not here: most conversations never write one, and a
    // mkdir in a folder of thousands was the largest single piece of a start (~0.17 ms of the loop).
    const persistenceDir = join(this.options.dataDir, 'conversations', id.replaceAll('-', ''));
    // What the start seals it keeps in clear for its runtime: opening each again was ~27 µs in a burst.
    const sealed = new Map<string, string>();
    const incoming = this.incomingSecret(userId, request);
    const secretBox = {
      encrypt: (value: string, context?: string) => {
        const plaintext = incoming(value);
        const stored = this.options.secretBox.encrypt(plaintext, context);
        sealed.set(stored, plaintext);
        return stored;
      },
    };
    const extensions = this.options.extensions ?? null;
    const initial = await withContextSkills(
      {
        ...initialState(
          { secretBox, openSent: this.incomingSecret(userId, { secrets_encrypted: true }) },
          effective,
          request,
          persistenceDir,
        ),
        ...profiled.state,
      },
      {
        user: () => userSkills(home),
        public: async (path) => (extensions === null ? [] : extensions.publicSkills(path)),
      },
    );
    let state = withPlugins(initial, plugins, (value) => secretBox.encrypt(value));
    const now = new Date().toISOString();
    // From here on things are created; a failure undoes them.
    const createdWorkspace = makeWorkspace(workingDir);
    let worktree: Worktree | null = null;
    try {
      if (request.worktree) {
        worktree = await conversationWorktree(workingDir, id, join(this.options.dataDir, 'worktrees'));
        if (worktree) state = inWorktree(state, worktree);
      }
      const record: ConversationRecord = {
        id,
        ownerId: userId,
        title: null,
        tags: request.tags ?? {},
        executionStatus: 'idle',
        state: state as unknown as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
        parentId,
      };
      if (!request.initial_message) await this.store.conversations.create(record);
      else {
        // Checked above. The record goes into the store with the first events, in one transaction.
        const message = { ...request.initial_message, run: true };
        await this.deliverAsOwner(userId, id, message, { record, settings: effective, sealed });
      }
    } catch (error) {
      await this.undoStart(id, persistenceDir, createdWorkspace);
      if (worktree) await removeWorktree(worktree, true);
      throw error;
    }
    // The live runtime's record is the current one (what info() would read); else from the store.
    const live = this.runtimes.get(id);
    return {
      info: await this.infoOf(live?.record ?? (await this.get(userId, id))),
      created: true,
    };
  }

  /**
   * The caller's settings with secrets in clear; with agentd's `llm_profile` (and no agent), that
   * saved profile's whole LLM is the one a start without an agent runs on (settingsLlm).
   */
  private async settingsFor(
    userId: string,
    request: StartConversationRequest,
  ): Promise<EffectiveSettings | null> {
    const effective = await this.options.settings.getEffective(userId);
    const name = request.llm_profile;
    if (name === undefined || request.agent || request.agent_settings) return effective;
    if (request.llm_model !== undefined)
      throw new InvalidConversationRequestError(
        ['body', 'llm_profile'],
        'Send llm_model or llm_profile, not both',
      );
    try {
      const active_llm = await this.options.settings.profileLlm(userId, name);
      return { ...(effective ?? defaultSettings()), active_llm };
    } catch (error) {
      if (error instanceof ProfileNotFoundError)
        throw new InvalidConversationRequestError(['body', 'llm_profile'], error.message);
      throw error;
    }
  }

  /**
   * How a secret of the request reads: as sent, or, with OpenHands' `secrets_encrypted`, opened when it
   * is a value this server sealed for this user (GET /api/settings with X-Expose-Secrets: encrypted
   * gave it); one that does not open is a 422.
   */
  private incomingSecret(
    userId: string,
    request: Pick<StartConversationRequest, 'secrets_encrypted'>,
  ): (value: string) => string {
    if (!request.secrets_encrypted) return (value) => value;
    return (value) => {
      try {
        return this.options.settings.openSealed(userId, value);
      } catch (error) {
        if (!(error instanceof SecretKeyError)) throw error;
        throw new InvalidConversationRequestError(
          ['body', 'secrets_encrypted'],
          "A sealed value does not open with this server's key for this user: send it in clear, or as GET /api/settings (X-Expose-Secrets: encrypted) gave it",
        );
      }
    };
  }

  /** Removes what a failed start created: its runtime, record (events cascade) and folders. */
  private async undoStart(id: string, persistenceDir: string, createdWorkspace: string | null) {
    await this.runtimes.settled(id);
    const runtime = this.runtimes.get(id);
    if (runtime) {
      this.runtimes.delete(id);
      runtime.interrupt();
      await runtime.running?.catch(() => undefined);
      await runtime.close();
    }
    await this.store.conversations.delete(id);
    rmSync(persistenceDir, { recursive: true, force: true });
    // Only a workspace this start created (and so holds nothing of the user's) is removed.
    if (createdWorkspace) rmSync(createdWorkspace, { recursive: true, force: true });
  }

  async sendMessage(userId: string, id: string, request: SendMessageRequest): Promise<void> {
    userMessage(request, NO_SKILLS); // a bad message is refused before the runtime is built
    return this.deliverAsOwner(userId, id, request);
  }

  /**
   * Delivers a message where the conversation is owned, as one append (see messageAppend).
   * `created`: what a start is creating; its runtime is built from it (with the settings the start
   * read), and the record is stored with the message's events. A client's message ends a /goal loop
   * under way (as OpenHands: the user took over); the loop's own (`fromGoal`) do not.
   */
  protected deliverAsOwner(
    userId: string,
    id: string,
    request: SendMessageRequest,
    created?: CreatedConversation,
    fromGoal = false,
  ): Promise<void> {
    return this.onOwner('sendMessage', userId, id, [request], async () => {
      const runtime = await this.runtime(userId, id, created); // the caller's conversation, or an error
      if (!fromGoal) await this.goals.stop(id);
      await this.runtimes.hold(runtime, async () => {
        const prompt = !this.prompted.has(runtime) && !(await this.hasSystemPrompt(runtime));
        const { events, patch } = messageAppend(runtime, request, prompt);
        if (created) await runtime.create(events, patch);
        else await runtime.emit(events, patch);
        this.prompted.add(runtime); // events are never removed: it stays on the branch that grows
        // Asked again: a run may have started or ended while the append was written.
        if (request.run && !runtime.running) this.startRun(runtime);
      });
    });
  }

  /**
   * Asked of the store unless the history is loaded (a message alone does not make it resident); of
   * a navigated conversation, only its active branch counts.
   */
  private async hasSystemPrompt(runtime: ConversationRuntime): Promise<boolean> {
    const loaded = runtime.loadedEvents();
    if (loaded) return loaded.some((e) => e.kind === 'SystemPromptEvent');
    const branch = new BranchReads(this.store.events, runtime.conversationId, runtime.state.branch_points);
    return branch.has('SystemPromptEvent');
  }
}
