// Wire types of the V1 app-conversation API (OpenHands app-server shapes). Ids of app conversations
// and start tasks are 32 hex digits on output (OpenHandsUUID); both forms are accepted on input.
import { type Static, Type } from 'typebox';
import { ExecutionStatus, SendMessageRequest } from '../conversation/schemas.js';
import { Nullable } from '../events/index.js';
import { SandboxStatus } from '../sandbox/schemas.js';

const UUID_INPUT = '^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$';
const HexId = Type.String({ pattern: '^[0-9a-f]{32}$' });

export const START_TASK_STATUSES = [
  'WORKING',
  'WAITING_FOR_SANDBOX',
  'PREPARING_REPOSITORY',
  'RUNNING_SETUP_SCRIPT',
  'SETTING_UP_GIT_HOOKS',
  'STARTING_CONVERSATION',
  'READY',
  'ERROR',
] as const;
export type StartTaskStatus = (typeof START_TASK_STATUSES)[number];
export const StartTaskStatus = Type.Unsafe<StartTaskStatus>({
  type: 'string',
  enum: [...START_TASK_STATUSES],
  $id: 'AppConversationStartTaskStatus',
});

const enumOf = <T extends string>(values: readonly T[], $id?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...($id ? { $id } : {}) });

export const PROVIDER_TYPES = ['github', 'gitlab', 'bitbucket', 'enterprise_sso'] as const;
export const TRIGGERS = [
  'resolver',
  'gui',
  'suggested_task',
  'openhands_api',
  'slack',
  'microagent_management',
  'jira',
  'jira_dc',
  'linear',
  'bitbucket',
] as const;
export const SORT_ORDERS = ['CREATED_AT', 'CREATED_AT_DESC', 'UPDATED_AT', 'UPDATED_AT_DESC'] as const;
export const StartTaskSortOrder = enumOf(SORT_ORDERS);

/** AppConversationStartRequest: every member optional; unknown members are ignored. */
export const AppConversationStartRequest = Type.Object(
  {
    sandbox_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    initial_message: Type.Optional(Nullable(SendMessageRequest)),
    processors: Type.Optional(Nullable(Type.Array(Type.Record(Type.String(), Type.Unknown())))),
    llm_model: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    // Neither may start with '-': git would read it as an option (`--upload-pack=…`).
    selected_repository: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 2048, pattern: '^[^-]' })),
    ),
    selected_branch: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, pattern: '^[^-]' }))),
    git_provider: Type.Optional(Nullable(enumOf(PROVIDER_TYPES))),
    title: Type.Optional(Nullable(Type.String())),
    trigger: Type.Optional(Nullable(enumOf(TRIGGERS))),
    pr_number: Type.Optional(Type.Array(Type.Integer())),
    parent_conversation_id: Type.Optional(Nullable(Type.String({ pattern: UUID_INPUT }))),
    agent_type: Type.Optional(enumOf(['default', 'plan'] as const)),
  },
  { additionalProperties: true, $id: 'AppConversationStartRequest' },
);
export type AppConversationStartRequest = Static<typeof AppConversationStartRequest>;

export const AppConversationStartTask = Type.Object(
  {
    id: HexId,
    created_by_user_id: Nullable(Type.String()),
    status: StartTaskStatus,
    detail: Nullable(Type.String()),
    app_conversation_id: Nullable(HexId),
    sandbox_id: Nullable(Type.String()),
    agent_server_url: Nullable(Type.String()),
    request: AppConversationStartRequest,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'AppConversationStartTask' },
);
export type AppConversationStartTask = Static<typeof AppConversationStartTask>;

export const AppConversationStartTaskPage = Type.Object(
  { items: Type.Array(AppConversationStartTask), next_page_id: Nullable(Type.String()) },
  { $id: 'AppConversationStartTaskPage' },
);

/** MetricsSnapshot of the SDK: the agent LLM's accumulated cost and usage. */
export const MetricsSnapshot = Type.Object(
  {
    model_name: Type.String(),
    accumulated_cost: Type.Number(),
    max_budget_per_task: Nullable(Type.Number()),
    accumulated_token_usage: Nullable(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'MetricsSnapshot' },
);

export const AppConversation = Type.Object(
  {
    id: HexId,
    created_by_user_id: Nullable(Type.String()),
    sandbox_id: Type.String(),
    selected_repository: Nullable(Type.String()),
    selected_branch: Nullable(Type.String()),
    git_provider: Nullable(Type.String()),
    title: Nullable(Type.String()),
    trigger: Nullable(Type.String()),
    pr_number: Type.Array(Type.Integer()),
    llm_model: Nullable(Type.String()),
    metrics: Nullable(MetricsSnapshot),
    parent_conversation_id: Nullable(HexId),
    sub_conversation_ids: Type.Array(HexId),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    sandbox_status: SandboxStatus,
    /** Null unless the sandbox is RUNNING. */
    execution_status: Type.Union([ExecutionStatus, Type.Null()]),
    conversation_url: Nullable(Type.String()),
    session_api_key: Nullable(Type.String()),
  },
  { $id: 'AppConversation' },
);
export type AppConversation = Static<typeof AppConversation>;

export const AppConversationPage = Type.Object(
  { items: Type.Array(AppConversation), next_page_id: Nullable(Type.String()) },
  { $id: 'AppConversationPage' },
);
