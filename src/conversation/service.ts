// Conversation lifecycle: start, message, run, pause, interrupt, confirm, delete, and the reads.
// Every event goes through the EventLog; every state change is a ConversationStateUpdateEvent
// persisted together with the record. Runs happen in the background (runtimes.ts); `full_state`
// snapshots are published after each run ends and after pause and interrupt (OpenHands clients wait
// for them).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { rejectPending } from '../agent/index.js';
import { type AnyEvent, dashedUuid, newEventId, nowTimestamp } from '../events/index.js';
import { loopTurns } from '../loop/index.js';
import type { ConversationRecord, ConversationSearch } from '../store/index.js';
import {
  CondenserUnavailableError,
  ConversationNotFoundError,
  ConversationRunningError,
  InvalidConversationRequestError,
} from './errors.js';
import { type ForkRequest, forkConversation } from './fork.js';
import { messageAppend } from './message-append.js';
import type { ConversationRuntime } from './runtime.js';
import { ConversationRuntimes } from './runtimes.js';
import type {
  ConfirmationPolicy,
  ConversationInfo,
  SendMessageRequest,
  StartConversationRequest,
} from './schemas.js';
import { sealSecrets } from './secrets.js';
import {
  initialState,
  makeConversationFolder,
  makeWorkspace,
  NO_SKILLS,
  userMessage,
} from './start-request.js';
import { conversationInfo, finalResponseOf, stateOf } from './state.js';

export type { ConversationServiceOptions } from './runtimes.js';

export class ConversationService extends ConversationRuntimes {
  /** Starts in progress by conversation id: a second start of one id waits for the first. */
  private readonly starting = new Map<string, Promise<unknown>>();
  /** Runtimes whose log is known to hold the SystemPromptEvent (asked once per runtime). */
  private readonly prompted = new WeakSet<ConversationRuntime>();

  // ---- reads -------------------------------------------------------------------------------------

  async info(userId: string, id: string): Promise<ConversationInfo> {
    return conversationInfo(await this.get(userId, id));
  }

  async infoMany(userId: string, ids: readonly string[]): Promise<(ConversationInfo | null)[]> {
    const records = await this.store.conversations.getMany(ids);
    return records.map((r) =>
      r && r.ownerId === userId ? conversationInfo(this.runtimes.get(r.id)?.record ?? r) : null,
    );
  }

  async search(
    userId: string,
    query: Omit<ConversationSearch, 'ownerId'>,
  ): Promise<{ items: ConversationRecord[]; nextPageId: string | null }> {
    const page = await this.store.conversations.search({ ...query, ownerId: userId });
    return {
      items: page.items.map((r) => this.runtimes.get(r.id)?.record ?? r),
      nextPageId: page.nextPageId,
    };
  }

  count(userId: string, executionStatus?: string): Promise<number> {
    return this.store.conversations.count({ ownerId: userId, executionStatus });
  }

  /** OpenHands' agent_final_response: see finalResponseOf. */
  async finalResponse(userId: string, id: string): Promise<string> {
    await this.get(userId, id);
    return finalResponseOf(this.runtimes.get(id)?.loadedEvents() ?? (await this.loadEvents(id)));
  }

  async fullState(userId: string, id: string): Promise<Record<string, unknown>> {
    return this.snapshot(await this.get(userId, id));
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /**
   * Starts a conversation. Atomic: everything that can be checked is checked before anything is
   * stored (the LLM configuration, the initial message, tools, hooks, secrets); if a later step still
   * fails (building the runtime, MCP), the record, its events and its folders are removed again, so a
   * failed start leaves nothing and a client may simply retry.
   */
  async start(
    userId: string,
    request: StartConversationRequest,
  ): Promise<{ info: ConversationInfo; created: boolean }> {
    // A start is a few milliseconds of synchronous work (store, folders, runtime, first events); a
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
      return { info: conversationInfo(existing), created: false };
    }
    if (request.initial_message) userMessage(request.initial_message, NO_SKILLS, ['body', 'initial_message']);
    // Read once: the agent (when the request has none) and the defaults both come from it.
    const effective = await this.options.settings.getEffective(userId);
    const workingDir = request.workspace.working_dir;
    const persistenceDir = join(this.options.dataDir, 'conversations', id.replaceAll('-', ''));
    const state = initialState(this.options, effective, request, persistenceDir);
    const now = new Date().toISOString();
    // From here on things are created; a failure undoes them.
    const createdWorkspace = makeWorkspace(workingDir);
    const record: ConversationRecord = {
      id,
      ownerId: userId,
      title: null,
      tags: request.tags ?? {},
      executionStatus: 'idle',
      state: state as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    };
    try {
      makeConversationFolder(persistenceDir);
      if (!request.initial_message) await this.store.conversations.create(record);
      else {
        // Checked above. The record goes into the store with the first events, in one transaction.
        await this.deliverAsOwner(userId, id, { ...request.initial_message, run: true }, record);
      }
    } catch (error) {
      await this.undoStart(id, persistenceDir, createdWorkspace);
      throw error;
    }
    // The live runtime's record is the current one (what info() would read); else from the store.
    const live = this.runtimes.get(id);
    return { info: live ? conversationInfo(live.record) : await this.info(userId, id), created: true };
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
   * `created`: the record a start is creating; its runtime is built from it, and the record is
   * stored with the message's events.
   */
  private deliverAsOwner(
    userId: string,
    id: string,
    request: SendMessageRequest,
    created?: ConversationRecord,
  ): Promise<void> {
    return this.onOwner('sendMessage', userId, id, [request], async () => {
      const runtime = await this.runtime(userId, id, created);
      await this.runtimes.hold(runtime, async () => {
        const prompt = !this.prompted.has(runtime) && !(await this.hasSystemPrompt(runtime));
        const { events, patch } = messageAppend(runtime, request, prompt);
        if (created) await runtime.create(events, patch);
        else await runtime.emit(events, patch);
        this.prompted.add(runtime); // events are never removed: once there, it stays there
        // Asked again: a run may have started or ended while the append was written.
        if (request.run && !runtime.running) this.startRun(runtime);
      });
    });
  }

  /** Asked of the store unless the history is loaded: a message alone does not make it resident. */
  private async hasSystemPrompt(runtime: ConversationRuntime): Promise<boolean> {
    const loaded = runtime.loadedEvents();
    if (loaded) return loaded.some((e) => e.kind === 'SystemPromptEvent');
    return this.store.events.exists(runtime.conversationId, { kind: 'SystemPromptEvent' });
  }

  async run(userId: string, id: string): Promise<void> {
    return this.onOwner('run', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      if (runtime.running) throw new ConversationRunningError(id);
      this.startRun(runtime);
    });
  }

  async pause(userId: string, id: string): Promise<void> {
    return this.onOwner('pause', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      if (runtime.status !== 'idle' && runtime.status !== 'running') return;
      runtime.requestPause();
      await runtime.setStatus('paused');
      await runtime.emit([
        { id: newEventId(), timestamp: nowTimestamp(), source: 'user', kind: 'PauseEvent' } as AnyEvent,
      ]);
      await this.publishSnapshot(runtime);
    });
  }

  async interrupt(userId: string, id: string): Promise<void> {
    return this.onOwner('interrupt', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      runtime.interrupt();
      // The run notices the abort and ends; its cleanup records the unfinished actions.
      await runtime.running;
      await runtime.setStatus('paused');
      await runtime.emit([
        { id: newEventId(), timestamp: nowTimestamp(), source: 'user', kind: 'InterruptEvent' } as AnyEvent,
      ]);
      await this.publishSnapshot(runtime);
    });
  }

  async respondToConfirmation(userId: string, id: string, accept: boolean, reason: string): Promise<void> {
    return this.onOwner('respondToConfirmation', userId, id, [accept, reason], async () => {
      const runtime = await this.runtime(userId, id);
      if (accept) {
        if (!runtime.running) this.startRun(runtime);
        return;
      }
      await runtime.loadHistory();
      await rejectPending(runtime, reason);
      await this.publishSnapshot(runtime);
    });
  }

  async setConfirmationPolicy(userId: string, id: string, policy: ConfirmationPolicy): Promise<void> {
    return this.onOwner('setConfirmationPolicy', userId, id, [policy], async () => {
      const runtime = await this.runtime(userId, id);
      await runtime.changeState('confirmation_policy', policy, {
        state: { ...runtime.state, confirmation_policy: policy },
      });
    });
  }

  async setSecurityAnalyzer(
    userId: string,
    id: string,
    analyzer: Record<string, unknown> | null,
  ): Promise<void> {
    return this.onOwner('setSecurityAnalyzer', userId, id, [analyzer], async () => {
      const runtime = await this.runtime(userId, id);
      await runtime.changeState('security_analyzer', analyzer, {
        state: { ...runtime.state, security_analyzer: analyzer },
      });
      runtime.agent.setSecurityAnalyzer(analyzer?.kind === 'LLMSecurityAnalyzer');
    });
  }

  async updateSecrets(userId: string, id: string, secrets: Record<string, unknown>): Promise<void> {
    return this.onOwner('updateSecrets', userId, id, [secrets], async () => {
      const record = await this.local(userId, id);
      const state = stateOf(record);
      const next = {
        ...state,
        secrets: { ...state.secrets, ...sealSecrets(this.options.secretBox, secrets) },
      };
      await this.store.conversations.update(id, { state: next as unknown as Record<string, unknown> });
      const runtime = this.runtimes.get(id);
      if (runtime) runtime.record = { ...runtime.record, state: next as unknown as Record<string, unknown> };
    });
  }

  /** PATCH: title (stripped) and tags (replaced). False when the conversation is unknown. */
  async update(
    userId: string,
    id: string,
    patch: { title?: string; tags?: Record<string, string> },
  ): Promise<boolean> {
    return this.onOwner('update', userId, id, [patch], () => this.updateHere(userId, id, patch));
  }

  private async updateHere(
    userId: string,
    id: string,
    patch: { title?: string; tags?: Record<string, string> },
  ): Promise<boolean> {
    let found: ConversationRecord;
    try {
      found = await this.get(userId, id);
    } catch (error) {
      if (error instanceof ConversationNotFoundError) return false;
      throw error;
    }
    const title = patch.title?.trim();
    if (patch.title !== undefined && !title)
      throw new InvalidConversationRequestError(['body', 'title'], 'Title must not be blank');
    // The web UI renames a V1 conversation here (legacy PATCH); tags still need the sandbox.
    if (found.sandboxId && this.renameSandboxed && title && !patch.tags) {
      await this.renameSandboxed(found, title);
      return true;
    }
    await this.local(userId, id);
    const changes: Partial<ConversationRecord> = { updatedAt: new Date().toISOString() };
    if (title) changes.title = title;
    const runtime = this.runtimes.get(id);
    if (patch.tags) {
      changes.tags = patch.tags;
      if (runtime) {
        await runtime.changeState('tags', patch.tags, changes);
        return true;
      }
    }
    await this.store.conversations.update(id, changes);
    if (runtime) runtime.record = { ...runtime.record, ...changes };
    return true;
  }

  /** OpenHands' POST /fork: an idle copy of the conversation that runs on its own (fork.ts). */
  async fork(userId: string, id: string, request: ForkRequest): Promise<ConversationInfo> {
    const source = await this.local(userId, id);
    const { store, options } = this;
    const deps = {
      store,
      log: options.log,
      dataDir: options.dataDir,
      loadEvents: (c: string) => this.loadEvents(c),
    };
    return conversationInfo(await forkConversation(deps, source, request));
  }

  /**
   * Forces a condensation of the LLM's view (OpenHands' POST /condense): a CondensationRequest, then
   * the condensation at once (after the current step when a run is going). False when the summary
   * call failed (a ConversationErrorEvent says why) or was interrupted.
   */
  async condense(userId: string, id: string): Promise<boolean> {
    return this.onOwner('condense', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      if (!runtime.agent.condenser) throw new CondenserUnavailableError(id);
      const idle = !runtime.running;
      // A fresh abort signal (an earlier interrupt may have spent it), and no eviction meanwhile.
      if (idle) runtime.beginRun();
      return this.runtimes.hold(runtime, async () => {
        await runtime.loadHistory();
        return (await runtime.agent.condense(runtime)) === 'continue';
      });
    });
  }

  async ask(userId: string, id: string, question: string): Promise<string> {
    return this.onOwner('ask', userId, id, [question], async () => {
      const runtime = await this.runtime(userId, id);
      return this.runtimes.hold(runtime, async () =>
        runtime.agent.ask(await runtime.loadHistory(), question),
      );
    });
  }

  /** Who renames a sandboxed conversation (the control plane); without one, a ConversationInSandboxError. */
  renameSandboxed: ((record: ConversationRecord, title: string) => Promise<void>) | null = null;

  /**
   * Who deletes a sandboxed conversation (the control plane); without one, deleting a mirror is a
   * ConversationInSandboxError.
   */
  deleteSandboxed: ((record: ConversationRecord) => Promise<void>) | null = null;

  async delete(userId: string, id: string): Promise<void> {
    return this.onOwner('delete', userId, id, [], async () => {
      const found = await this.get(userId, id);
      if (found.sandboxId && this.deleteSandboxed) return this.deleteSandboxed(found);
      const record = await this.local(userId, id);
      const runtime = this.runtimes.get(id);
      if (runtime) {
        runtime.interrupt();
        await runtime.running?.catch(() => undefined);
        await runtime.close();
        this.runtimes.delete(id);
      }
      await this.store.conversations.delete(id);
      rmSync(stateOf(record).persistence_dir, { recursive: true, force: true });
    });
  }
}
