// V1 app conversations: start tasks and their pipeline, the mirrors of sandboxed conversations and
// the syncs that fill them, and the AppConversation view (live sandbox status, URL and key).
import { randomUUID } from 'node:crypto';
import { InvalidConversationRequestError } from '../conversation/errors.js';
import type { EventLog } from '../conversation/event-log.js';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../conversation/schemas.js';
import { stateOf } from '../conversation/state.js';
import { dashedUuid } from '../events/index.js';
import type { SandboxRecord, SandboxService } from '../sandbox/index.js';
import type { SettingsService } from '../settings/index.js';
import {
  allItems,
  type ConversationFilter,
  type ConversationRecord,
  type DocumentStore,
  type Store,
} from '../store/index.js';
import { AgentServerClient } from './agent-client.js';
import { appFieldsOf, hex, type StartTaskRecord } from './records.js';
import { type AppConversation, type AppConversationStartRequest, START_TASK_STATUSES } from './schemas.js';
import { StartPipeline } from './start-pipeline.js';
import { MirrorSyncs } from './syncs.js';

export interface AppConversationServiceOptions {
  store: Store;
  log: EventLog;
  sandboxes: SandboxService;
  settings: SettingsService;
  /** The web search server a user's search_api_key connects (AGENTD_SEARCH_MCP_URL); default Tavily's. */
  searchMcpUrl?: string;
  logError?: (error: Error, context: string) => void;
}

export type AppConversationFilter = Pick<
  ConversationFilter,
  'titleContains' | 'createdAtGte' | 'createdAtLt' | 'updatedAtGte' | 'updatedAtLt'
> & { includeSubConversations?: boolean };

export interface StartTaskFilter {
  conversationId?: string;
  createdAtGte?: string;
}

export class AppConversationService {
  private readonly tasks: DocumentStore<StartTaskRecord>;
  private readonly pipeline: StartPipeline;
  private readonly syncs: MirrorSyncs;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly options: AppConversationServiceOptions) {
    this.tasks = options.store.documents<StartTaskRecord>('start_tasks');
    this.syncs = new MirrorSyncs(options.store, options.log, options.sandboxes, options.logError);
    this.pipeline = new StartPipeline({
      store: options.store,
      sandboxes: options.sandboxes,
      settings: options.settings,
      searchMcpUrl: options.searchMcpUrl,
      mirrored: (id, sandbox) => this.syncs.follow(id, sandbox),
    });
  }

  /**
   * After a restart: a start of this replica's cut off midway ends in ERROR; the mirrors of conversations in live
   * sandboxes sync again from their cursors.
   */
  async recover(liveSandboxes: readonly SandboxRecord[]): Promise<void> {
    const unfinished = START_TASK_STATUSES.filter((s) => s !== 'READY' && s !== 'ERROR');
    const tasks = allItems((pageId) =>
      this.tasks.search({ status: unfinished, sort: 'CREATED_AT', limit: 100, pageId }),
    );
    for await (const task of tasks) {
      // Another live replica's start goes on there.
      if (task.replica !== undefined && task.replica !== this.options.sandboxes.replica) continue;
      await this.tasks.put({
        ...task,
        status: 'ERROR',
        detail: 'The server restarted while this conversation was starting; start it again.',
        updatedAt: new Date().toISOString(),
      });
    }
    for (const sandbox of liveSandboxes) await this.syncs.followSandbox(sandbox);
  }

  // ---- start tasks -------------------------------------------------------------------------------

  /** Saves the task in WORKING and runs the pipeline; `onSave` sees every saved state, the first included. */
  async start(
    ownerId: string,
    request: AppConversationStartRequest,
    onSave: (task: StartTaskRecord) => void = () => {},
  ): Promise<{ first: StartTaskRecord; done: Promise<StartTaskRecord> }> {
    request = normalizedRequest(await this.withParent(ownerId, request));
    const now = new Date().toISOString();
    const task: StartTaskRecord = {
      id: randomUUID(),
      ownerId,
      status: 'WORKING',
      ref: null,
      appConversationId: null,
      detail: null,
      sandboxId: null,
      agentServerUrl: null,
      request,
      replica: this.options.sandboxes.replica,
      createdAt: now,
      updatedAt: now,
    };
    await this.tasks.put(task);
    onSave(task);
    const done = this.pipeline.run(task, onSave);
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
    return { first: task, done };
  }

  async getTasks(ownerId: string, ids: readonly string[]): Promise<(StartTaskRecord | null)[]> {
    const tasks = await this.tasks.getMany(ids.map(dashedUuid));
    return tasks.map((t) => (t && t.ownerId === ownerId ? t : null));
  }

  searchTasks(
    ownerId: string,
    query: StartTaskFilter & {
      sort: 'CREATED_AT' | 'CREATED_AT_DESC' | 'UPDATED_AT' | 'UPDATED_AT_DESC';
      pageId?: string;
      limit: number;
    },
  ): Promise<{ items: StartTaskRecord[]; nextPageId: string | null }> {
    return this.tasks.search({
      ownerId,
      ref: query.conversationId ? dashedUuid(query.conversationId) : undefined,
      createdAtGte: query.createdAtGte,
      sort: query.sort,
      pageId: query.pageId ? dashedUuid(query.pageId) : undefined,
      limit: query.limit,
    });
  }

  countTasks(ownerId: string, filter: StartTaskFilter): Promise<number> {
    return this.tasks.count({
      ownerId,
      ref: filter.conversationId ? dashedUuid(filter.conversationId) : undefined,
      createdAtGte: filter.createdAtGte,
    });
  }

  // ---- app conversations -------------------------------------------------------------------------

  async getMany(ownerId: string, ids: readonly string[]): Promise<(AppConversation | null)[]> {
    const records = await this.options.store.conversations.getMany(ids.map(dashedUuid));
    const owned = records.map((r) => (r && r.ownerId === ownerId && r.sandboxId ? r : null));
    const views = await this.views(
      ownerId,
      owned.filter((r): r is ConversationRecord => r !== null),
    );
    // As OpenHands, a get names the sub-conversations; a search's items do not.
    const children = await this.options.store.conversations.children(
      owned.filter((r) => r !== null).map((r) => r.id),
    );
    return owned.map((r) =>
      r ? { ...views.get(r.id)!, sub_conversation_ids: (children.get(r.id) ?? []).map(hex) } : null,
    );
  }

  async search(
    ownerId: string,
    query: AppConversationFilter & { pageId?: string; limit: number },
  ): Promise<{ items: AppConversation[]; nextPageId: string | null }> {
    const page = await this.options.store.conversations.search({
      ...this.filter(ownerId, query),
      sort: 'CREATED_AT_DESC',
      pageId: query.pageId ? dashedUuid(query.pageId) : undefined,
      limit: query.limit,
    });
    const views = await this.views(ownerId, page.items);
    return {
      items: page.items.map((r) => views.get(r.id)!),
      nextPageId: page.nextPageId ? hex(page.nextPageId) : null,
    };
  }

  count(ownerId: string, filter: AppConversationFilter): Promise<number> {
    return this.options.store.conversations.count(this.filter(ownerId, filter));
  }

  /**
   * Deletes an app conversation (legacy DELETE /api/conversations/{id}, which OpenHands' UI uses):
   * on its agent server when the sandbox runs, then the mirror, its events and its start tasks. The
   * sandbox goes too when no other conversation uses it, as OpenHands deletes it.
   */
  async delete(record: ConversationRecord): Promise<void> {
    const { sandboxes, store } = this.options;
    const sandbox = await sandboxes.get(record.ownerId, record.sandboxId!);
    await this.syncs.unfollow(record.id);
    if (sandbox?.status === 'RUNNING' && sandbox.agentUrl) {
      const client = new AgentServerClient(sandbox.agentUrl, sandboxes.sessionKey(sandbox));
      await client.deleteConversation(hex(record.id)).catch((error: Error) => {
        this.options.logError?.(error, `deleting ${record.id} in sandbox ${sandbox.id}`);
      });
    }
    await store.conversations.delete(record.id);
    const tasks = await this.tasks.search({ ref: record.id, sort: 'CREATED_AT', limit: 100 });
    for (const task of tasks.items) await this.tasks.delete(task.id);
    if (sandbox && (await store.conversations.count({ sandboxId: sandbox.id })) === 0) {
      await sandboxes.delete(record.ownerId, sandbox.id);
    }
  }

  /**
   * Legacy PATCH {title} of a sandboxed conversation (OpenHands: save the title and updated_at here,
   * then best-effort PATCH the agent server). The sync keeps a title once set, so the mirror's sticks.
   */
  async rename(record: ConversationRecord, title: string): Promise<void> {
    const { sandboxes, store } = this.options;
    await store.conversations.update(record.id, { title, updatedAt: new Date().toISOString() });
    const sandbox = await sandboxes.get(record.ownerId, record.sandboxId!);
    if (sandbox?.status === 'RUNNING' && sandbox.agentUrl) {
      const client = new AgentServerClient(sandbox.agentUrl, sandboxes.sessionKey(sandbox));
      await client.renameConversation(hex(record.id), title).catch((error: Error) => {
        this.options.logError?.(error, `renaming ${record.id} in sandbox ${sandbox.id}`);
      });
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
    await this.syncs.close();
  }

  // ---- internals ---------------------------------------------------------------------------------

  private filter(ownerId: string, filter: AppConversationFilter): ConversationFilter {
    return {
      ownerId,
      sandboxed: true,
      hasParent: filter.includeSubConversations ? undefined : false,
      titleContains: filter.titleContains,
      createdAtGte: filter.createdAtGte,
      createdAtLt: filter.createdAtLt,
      updatedAtGte: filter.updatedAtGte,
      updatedAtLt: filter.updatedAtLt,
    };
  }

  /** A sub-conversation inherits its parent's sandbox, repository and model when the request leaves them out. */
  private async withParent(
    ownerId: string,
    request: AppConversationStartRequest,
  ): Promise<AppConversationStartRequest> {
    if (!request.parent_conversation_id) return request;
    const parent = await this.options.store.conversations.get(dashedUuid(request.parent_conversation_id));
    if (!parent || parent.ownerId !== ownerId || !parent.sandboxId) {
      throw new InvalidConversationRequestError(
        ['body', 'parent_conversation_id'],
        `Parent conversation not found: ${request.parent_conversation_id}`,
      );
    }
    const app = appFieldsOf(parent);
    return {
      ...request,
      sandbox_id: request.sandbox_id ?? parent.sandboxId,
      selected_repository: request.selected_repository ?? app.selected_repository,
      selected_branch: request.selected_branch ?? app.selected_branch,
      git_provider: request.git_provider ?? (app.git_provider as AppConversationStartRequest['git_provider']),
      llm_model: request.llm_model ?? app.llm_model,
    };
  }

  /** AppConversation views of mirror records, their sandboxes read once per page. */
  private async views(
    ownerId: string,
    records: readonly ConversationRecord[],
  ): Promise<Map<string, AppConversation>> {
    const sandboxIds = [...new Set(records.map((r) => r.sandboxId!))];
    const sandboxes = await this.options.sandboxes.getMany(ownerId, sandboxIds);
    const byId = new Map(sandboxes.filter((s): s is SandboxRecord => s !== null).map((s) => [s.id, s]));
    return new Map(records.map((r) => [r.id, this.view(r, byId.get(r.sandboxId!) ?? null)]));
  }

  private view(record: ConversationRecord, sandbox: SandboxRecord | null): AppConversation {
    const app = appFieldsOf(record);
    const running = sandbox?.status === 'RUNNING' && sandbox.agentUrl !== null;
    const status = record.executionStatus as ExecutionStatus;
    return {
      id: hex(record.id),
      created_by_user_id: record.ownerId,
      sandbox_id: record.sandboxId!,
      selected_repository: app.selected_repository,
      selected_branch: app.selected_branch,
      git_provider: app.git_provider,
      title: record.title,
      trigger: app.trigger,
      pr_number: app.pr_number,
      llm_model: app.llm_model,
      metrics: metricsOf(record),
      parent_conversation_id: record.parentId ? hex(record.parentId) : null,
      sub_conversation_ids: [],
      created_at: record.createdAt,
      updated_at: record.updatedAt,
      sandbox_status: sandbox?.status ?? 'MISSING',
      execution_status: running && EXECUTION_STATUSES.includes(status) ? status : null,
      conversation_url: running ? `${sandbox.agentUrl}/api/conversations/${hex(record.id)}` : null,
      session_api_key: running ? this.options.sandboxes.sessionKey(sandbox) : null,
    };
  }
}

/**
 * The request as OpenHands' model serializes it: every member, defaults filled in, unknown members
 * dropped (they were accepted, not kept).
 */
function normalizedRequest(request: AppConversationStartRequest): AppConversationStartRequest {
  return {
    sandbox_id: request.sandbox_id ?? null,
    initial_message: request.initial_message ?? null,
    processors: request.processors ?? null,
    llm_model: request.llm_model ?? null,
    selected_repository: request.selected_repository ?? null,
    selected_branch: request.selected_branch ?? null,
    git_provider: request.git_provider ?? null,
    title: request.title ?? null,
    trigger: request.trigger ?? null,
    pr_number: request.pr_number ?? [],
    parent_conversation_id: request.parent_conversation_id
      ? hex(dashedUuid(request.parent_conversation_id))
      : null,
    agent_type: request.agent_type ?? 'default',
  };
}

/** The SDK's MetricsSnapshot of the agent LLM, from the mirrored stats. */
function metricsOf(record: ConversationRecord): AppConversation['metrics'] {
  const usage = (stateOf(record).stats as { usage_to_metrics?: Record<string, Record<string, unknown>> })
    .usage_to_metrics;
  const metrics = usage?.agent ?? Object.values(usage ?? {})[0];
  if (!metrics) return null;
  return {
    model_name: typeof metrics.model_name === 'string' ? metrics.model_name : 'default',
    accumulated_cost: typeof metrics.accumulated_cost === 'number' ? metrics.accumulated_cost : 0,
    max_budget_per_task: typeof metrics.max_budget_per_task === 'number' ? metrics.max_budget_per_task : null,
    accumulated_token_usage: (metrics.accumulated_token_usage as Record<string, unknown> | undefined) ?? null,
  };
}
