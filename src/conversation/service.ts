// Conversation lifecycle: run, pause, interrupt, confirm, update, fork, navigate, condense, ask,
// delete, and the reads; start and message come in through the classes below it (intake.ts), the
// /goal loop through goals.ts, changes to the agent and policies through agent-changes.ts.
// Every event goes through the EventLog; every state change is a ConversationStateUpdateEvent
// persisted together with the record. Runs happen in the background (runtimes.ts); `full_state`
// snapshots are published after each run ends and after pause and interrupt (OpenHands clients wait
// for them).
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AgentDefinition, rejectPending } from '../agent/index.js';
import { type AnyEvent, newEventId, nowTimestamp } from '../events/index.js';
import { removeWorktree } from '../git/index.js';
import type { ConversationRecord, ConversationSearch } from '../store/index.js';
import type { SubAgentPort } from '../tools/index.js';
import { ConversationAgentChanges } from './agent-changes.js';
import { BranchReads } from './branch-reads.js';
import { navigatedPoints } from './branches.js';
import {
  CondenserUnavailableError,
  ConversationNotFoundError,
  ConversationRunningError,
  InvalidConversationRequestError,
  UnknownEventError,
} from './errors.js';
import { type ForkRequest, forkConversation } from './fork.js';
import type { ConversationInfo, ExecutionStatus } from './schemas.js';
import { finalResponseOf, stateOf } from './state.js';
import { SubAgentTasks } from './sub-agent-tasks.js';

export type { ConversationServiceOptions } from './runtimes.js';

export class ConversationService extends ConversationAgentChanges {
  /** The sub-agent tasks conversations launch (task_tool_set), run as child conversations. */
  private readonly tasks = new SubAgentTasks({
    conversations: this,
    store: this.options.store,
    settings: this.options.settings,
    secretBox: this.options.secretBox,
    home: this.options.skillsHome ?? homedir(),
    runtime: (id) => this.runtimes.get(id),
    closing: () => this.closing,
  });

  protected subAgentPort(record: ConversationRecord, types: readonly AgentDefinition[]): SubAgentPort {
    return this.tasks.port(record, types);
  }

  // ---- reads -------------------------------------------------------------------------------------

  async info(userId: string, id: string): Promise<ConversationInfo> {
    return this.infoOf(await this.get(userId, id));
  }

  async infoMany(userId: string, ids: readonly string[]): Promise<(ConversationInfo | null)[]> {
    const records = (await this.store.conversations.getMany(ids)).map((r) =>
      r && r.ownerId === userId ? (this.runtimes.get(r.id)?.record ?? r) : null,
    );
    const infos = await this.infos(records.filter((r) => r !== null));
    let next = 0;
    return records.map((r) => (r ? infos[next++]! : null));
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
    const record = await this.get(userId, id);
    const loaded = this.runtimes.get(id)?.loadedEvents();
    if (loaded) return finalResponseOf(loaded);
    return new BranchReads(this.store.events, id, stateOf(record).branch_points).finalResponse();
  }

  async fullState(userId: string, id: string): Promise<Record<string, unknown>> {
    return this.snapshot(await this.get(userId, id));
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  async run(userId: string, id: string): Promise<void> {
    return this.onOwner('run', userId, id, [], async () => {
      const runtime = await this.runtime(userId, id);
      if (runtime.running) throw new ConversationRunningError(id);
      this.startRun(runtime);
    });
  }

  /**
   * Waits, where the conversation is owned, until no run of it is under way (a run that ends by
   * starting another, as a confirmation can, is waited for too), at most `timeoutMs`: its status then,
   * `running` when the time ran out. For a caller that answers only once the agent has (the OpenAI
   * gateway).
   */
  async settled(userId: string, id: string, timeoutMs: number): Promise<ExecutionStatus> {
    return this.onOwner('settled', userId, id, [timeoutMs], async () => {
      const runtime = await this.runtime(userId, id);
      const timer = new AbortController();
      const late = sleep(timeoutMs, 'late' as const, { ref: false, signal: timer.signal }).catch(
        () => 'late' as const,
      );
      try {
        for (let run = runtime.running; run; run = runtime.running)
          if ((await Promise.race([run.then(settledRun, settledRun), late])) === 'late') return 'running';
        return runtime.status;
      } finally {
        timer.abort();
      }
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
    const deps = { store, log: options.log, dataDir: options.dataDir };
    return this.infoOf(await forkConversation(deps, source, request));
  }

  /**
   * Moves HEAD to an event of the conversation (OpenHands' POST /navigate; null: an empty tree): the
   * events appended next start a branch from it and the agent sees only the path to it (branches.ts).
   * Every branch stays in the log. Not while a run or a forced condensation is going
   * (ConversationRunningError).
   */
  async navigate(userId: string, id: string, eventId: string | null): Promise<ConversationInfo> {
    // The log is read and the new state stored in the conversation's append order: no event lands
    // between the two.
    return this.onOwner('navigate', userId, id, [eventId], () =>
      this.options.log.read(id, async () => {
        // The caller's, not a sandbox's mirror; the live runtime's record when there is one (get()).
        const record = await this.local(userId, id);
        const runtime = this.runtimes.get(id);
        if (runtime?.running || runtime?.condensing || record.executionStatus === 'running')
          throw new ConversationRunningError(id);
        if (eventId !== null && !(await this.store.events.get(id, eventId)))
          throw new UnknownEventError('event_id', eventId);
        const seq = await this.store.events.lastSeq(id);
        const state = stateOf(record);
        const next = {
          ...state,
          branch_points: navigatedPoints(state.branch_points, seq, eventId),
          leaf_event_id: eventId,
        };
        const changes = {
          state: next as unknown as Record<string, unknown>,
          updatedAt: new Date().toISOString(),
        };
        await this.store.conversations.update(id, changes);
        const updated = { ...record, ...changes };
        if (runtime) {
          runtime.rebranch(updated);
          this.prompted.delete(runtime);
        }
        return this.infoOf(updated);
      }),
    );
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
        runtime.condensing = true;
        try {
          await runtime.loadHistory();
          return (await runtime.agent.condense(runtime)) === 'continue';
        } finally {
          runtime.condensing = false;
        }
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
      await this.goals.stop(id, false);
      const runtime = this.runtimes.get(id);
      if (runtime) {
        runtime.interrupt();
        await runtime.running?.catch(() => undefined);
        await runtime.close();
        this.runtimes.delete(id);
      }
      await this.store.conversations.delete(id);
      const state = stateOf(record);
      rmSync(state.persistence_dir, { recursive: true, force: true });
      // Uncommitted work in its worktree is the user's: such a worktree stays (and its branch always).
      if (state.worktree && !(await removeWorktree(state.worktree, false)))
        this.logFor(id).warn({ worktree: state.worktree.root }, 'worktree kept: it has uncommitted changes');
    });
  }
}

const settledRun = () => 'settled' as const;
