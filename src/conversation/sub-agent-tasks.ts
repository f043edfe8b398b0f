// Sub-agent tasks (OpenHands' task_tool_set): a task is a conversation of its own, a child of the
// conversation whose agent launched it (`parent_conversation_id`, tagged with its task id and type),
// in the same workspace, so a client can open it and read its events like any other. The tool waits
// until the child's run ends and answers with its final response; `resume` sends the next prompt to
// the same child. As in OpenHands, where no one answers a sub-agent's confirmations for the user, the
// user's approval of the task covers the actions it runs: they are approved as they come. Its spend
// shows in the parent's stats as `task:<id>` and counts toward the parent's budget.
import type { AgentDefinition } from '../agent/index.js';
import { mapLlmSecrets } from '../llm/index.js';
import { ProfileNotFoundError, type SecretBox, type SettingsService } from '../settings/index.js';
import type { ConversationRecord, Store } from '../store/index.js';
import type { SubAgentPort, TaskOutcome } from '../tools/index.js';
import { InvalidConversationRequestError, nullIfNotFound } from './errors.js';
import type { ConversationRuntime } from './runtime.js';
import type {
  ConversationInfo,
  ExecutionStatus,
  SendMessageRequest,
  StartConversationRequest,
} from './schemas.js';
import { openedSecrets } from './secrets.js';
import { type ConversationState, stateOf } from './state.js';
import {
  combinedUsage,
  SubAgentDefinitionError,
  TASK_TAG,
  taskStartRequest,
  taskTags,
} from './sub-agent-requests.js';

/** The conversation operations a task uses (ConversationService has them all). */
export interface TaskConversations {
  start(userId: string, request: StartConversationRequest): Promise<{ info: ConversationInfo }>;
  sendMessage(userId: string, id: string, request: SendMessageRequest): Promise<void>;
  settled(userId: string, id: string, timeoutMs: number): Promise<ExecutionStatus>;
  interrupt(userId: string, id: string): Promise<void>;
  respondToConfirmation(userId: string, id: string, accept: boolean, reason: string): Promise<void>;
  finalResponse(userId: string, id: string): Promise<string>;
  update(userId: string, id: string, patch: { title?: string }): Promise<boolean>;
  /** The record (a live runtime's, the newest), ConversationNotFoundError when not the user's. */
  get(userId: string, id: string): Promise<ConversationRecord>;
}

export interface TaskSources {
  conversations: TaskConversations;
  store: Store;
  settings: SettingsService;
  secretBox: SecretBox;
  home: string;
  /** The live runtime of the parent (the tool runs inside it). */
  runtime: (id: string) => ConversationRuntime | undefined;
  /** Whether the service is closing (it interrupts every runtime itself then). */
  closing: () => boolean;
}

/** How long one wait for a task's run lasts before it looks again (an abort ends it sooner). */
const WAIT_MS = 60_000;

export class SubAgentTasks {
  /**
   * Per parent whose tasks are being started: the last number given out and how many starts are under
   * way, so tasks started at once get different ids. Once none is, the store holds every number.
   */
  private readonly numbering = new Map<string, { last: number; starting: number }>();

  constructor(private readonly sources: TaskSources) {}

  /** The port a conversation's task tool runs its sub-agents through. */
  port(record: ConversationRecord, definitions: readonly AgentDefinition[]): SubAgentPort {
    return {
      types: definitions.map((d) => ({ name: d.name, description: d.description, tools: d.tools })),
      run: (task, signal) => this.run(record.ownerId, record.id, definitions, task, signal),
    };
  }

  private async run(
    ownerId: string,
    parentId: string,
    definitions: readonly AgentDefinition[],
    task: { prompt: string; subagentType: string; description: string | null; resume: string | null },
    signal: AbortSignal,
  ): Promise<TaskOutcome> {
    let child: { id: string; taskId: string };
    try {
      child = task.resume
        ? await this.resumed(parentId, task.resume)
        : await this.started(ownerId, parentId, definitions, task.subagentType, task.description);
    } catch (error) {
      if (!(error instanceof SubAgentDefinitionError || error instanceof InvalidConversationRequestError))
        throw error;
      const where = error instanceof InvalidConversationRequestError ? ` (at ${error.loc.join('.')})` : '';
      return {
        taskId: task.resume ?? 'unknown',
        status: 'error',
        text: `Failed to start the task: ${error.message}${where}`,
      };
    }
    const { conversations } = this.sources;
    try {
      const message = {
        role: 'user' as const,
        content: [{ type: 'text' as const, text: task.prompt }],
        run: true,
      };
      await conversations.sendMessage(ownerId, child.id, message);
      const status = await this.ended(ownerId, child.id, signal);
      if (status === 'interrupted')
        return {
          taskId: child.taskId,
          status: 'error',
          text: `Interrupted with the conversation that launched it; resume it with its task id ${child.taskId}.`,
        };
      if (status === 'finished') {
        const result = await conversations.finalResponse(ownerId, child.id);
        return {
          taskId: child.taskId,
          status: 'completed',
          text: result || 'Task completed with no result.',
        };
      }
      return { taskId: child.taskId, status: 'error', text: await this.stopped(ownerId, child.id, status) };
    } finally {
      await this.countSpend(ownerId, parentId, child);
    }
  }

  /** A new task: its conversation started (no message yet) and titled. */
  private async started(
    ownerId: string,
    parentId: string,
    definitions: readonly AgentDefinition[],
    type: string,
    description: string | null,
  ): Promise<{ id: string; taskId: string }> {
    const definition = definitions.find((d) => d.name === type);
    if (!definition)
      throw new SubAgentDefinitionError(
        `Unknown sub-agent type '${type}'. Available: ${definitions.map((d) => d.name).join(', ') || 'none'}.`,
      );
    const parent = this.sources.runtime(parentId);
    if (!parent) throw new Error(`conversation ${parentId} is not running here`);
    const state = parent.state;
    const open = (sealed: string) => this.sources.secretBox.decrypt(sealed);
    const request = taskStartRequest({
      parentId,
      parent: state,
      definition,
      llm: await this.llmFor(ownerId, definition, state, open),
      secrets: openedSecrets(state.secrets, open),
      budget: this.budgetFor(definition, state, parent.agent.spent()),
      home: this.sources.home,
    });
    // Numbered once the definition made a start: a refused one takes no task id.
    const taskId = await this.nextTaskId(parentId);
    try {
      const tags = taskTags(taskId, definition.name);
      const { info } = await this.sources.conversations.start(ownerId, { ...request, tags });
      await this.sources.conversations.update(ownerId, info.id, {
        title: description?.trim() || `${definition.name} (${taskId})`,
      });
      return { id: info.id, taskId };
    } finally {
      const entry = this.numbering.get(parentId)!;
      if (--entry.starting === 0) this.numbering.delete(parentId);
    }
  }

  /** The LLM a definition runs on: the parent's (`inherit`), or the owner's saved LLM profile it names. */
  private async llmFor(
    ownerId: string,
    definition: AgentDefinition,
    parent: ConversationState,
    open: (sealed: string) => string,
  ) {
    const model = definition.model.trim();
    if (!model || model === 'inherit') return mapLlmSecrets(parent.agent.llm, open);
    try {
      return { ...(await this.sources.settings.profileLlm(ownerId, model.replace(/\.json$/, ''))) };
    } catch (error) {
      if (!(error instanceof ProfileNotFoundError)) throw error;
      throw new SubAgentDefinitionError(
        `Agent '${definition.name}' runs on the LLM profile '${model}', which is not there (see GET /api/profiles).`,
      );
    }
  }

  /** The definition's budget, never more than what the parent has left of its own. */
  private budgetFor(definition: AgentDefinition, parent: ConversationState, spent: number): number | null {
    const left = parent.max_budget_per_task == null ? null : Math.max(0, parent.max_budget_per_task - spent);
    const own = definition.max_budget_per_run ?? null;
    if (left === null) return own;
    return own === null ? left : Math.min(own, left);
  }

  /** A task of this parent that ran before, by its id. */
  private async resumed(parentId: string, taskId: string): Promise<{ id: string; taskId: string }> {
    const tasks = await this.tasksOf(parentId);
    const found = tasks.find((t) => t.tags[TASK_TAG] === taskId);
    if (!found)
      throw new SubAgentDefinitionError(
        `Task '${taskId}' not found. Available tasks: ${tasks.map((t) => t.tags[TASK_TAG]).join(', ') || 'none'}.`,
      );
    return { id: found.id, taskId };
  }

  /** The parent's task conversations (its children with a task id). */
  private async tasksOf(parentId: string): Promise<ConversationRecord[]> {
    const { store } = this.sources;
    const ids = (await store.conversations.children([parentId])).get(parentId) ?? [];
    const records = await store.conversations.getMany(ids);
    return records.filter((r): r is ConversationRecord => r !== null && typeof r.tags[TASK_TAG] === 'string');
  }

  /**
   * The parent's next task id (OpenHands' task_00000001, … in the order its tasks start); the caller
   * counts its start as under way until it ends.
   */
  private async nextTaskId(parentId: string): Promise<string> {
    let entry = this.numbering.get(parentId);
    if (!entry) {
      const taken = (await this.tasksOf(parentId)).map((t) =>
        Number.parseInt(t.tags[TASK_TAG]!.slice(5), 16),
      );
      // Another start of this parent may have begun while the store was read.
      entry = this.numbering.get(parentId) ?? {
        last: Math.max(0, ...taken.filter(Number.isFinite)),
        starting: 0,
      };
      this.numbering.set(parentId, entry);
    }
    entry.last += 1;
    entry.starting += 1;
    return `task_${entry.last.toString(16).padStart(8, '0')}`;
  }

  /**
   * Waits until the task's run ends, approving the confirmations it asks for; an abort (the parent
   * interrupted) interrupts the task too.
   */
  private async ended(
    ownerId: string,
    id: string,
    signal: AbortSignal,
  ): Promise<ExecutionStatus | 'interrupted'> {
    const { conversations } = this.sources;
    // The parent's signal lives as long as its run: the listener goes once this task has ended.
    let onAbort = () => {};
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const status = await Promise.race([conversations.settled(ownerId, id, WAIT_MS), aborted]);
        if (status === 'aborted') {
          // When the service closes it interrupts every runtime itself (the task's too), and none may
          // be built again; otherwise the task is interrupted wherever it runs.
          if (!this.sources.closing()) await conversations.interrupt(ownerId, id);
          return 'interrupted';
        }
        if (status === 'running') continue;
        if (status !== 'waiting_for_confirmation') return status;
        await conversations.respondToConfirmation(ownerId, id, true, '');
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Why a task ended without finishing, and what it had got to (OpenHands' "partial result"). */
  private async stopped(ownerId: string, id: string, status: string): Promise<string> {
    const errors = await this.sources.store.events.search(id, {
      kind: 'ConversationErrorEvent',
      order: 'desc',
      limit: 1,
    });
    const detail =
      (errors.items[0] && (JSON.parse(errors.items[0].json) as { detail?: string }).detail) || null;
    const reason = detail ?? `Sub-agent stopped without finishing (status: ${status}).`;
    const partial = await this.sources.conversations.finalResponse(ownerId, id);
    return partial ? `${reason}\nPartial result:\n${partial}` : reason;
  }

  /** The task's spend, into the parent's stats (and budget) as `task:<id>`. */
  private async countSpend(
    ownerId: string,
    parentId: string,
    child: { id: string; taskId: string },
  ): Promise<void> {
    const parent = this.sources.runtime(parentId);
    const record = await this.sources.conversations.get(ownerId, child.id).catch(nullIfNotFound);
    if (!parent || !record) return;
    const state = stateOf(record);
    parent.agent.recordUsage(`task:${child.taskId}`, combinedUsage(state.stats, state.agent.llm.model));
    await parent.updateStats(parent.agent.stats());
  }
}
