// What the control plane stores for V1: start tasks (documents) and the app-specific members of a
// sandboxed conversation's mirror record (kept in its state under `app`), with their wire projections.
import type { ConversationState } from '../conversation/state.js';
import type { ConversationRecord, Document } from '../store/index.js';
import type { AppConversationStartRequest, AppConversationStartTask, StartTaskStatus } from './schemas.js';

export interface StartTaskRecord extends Document {
  status: StartTaskStatus;
  /** The app conversation, once READY (also in `ref`, so the store can filter on it). */
  appConversationId: string | null;
  detail: string | null;
  sandboxId: string | null;
  agentServerUrl: string | null;
  request: AppConversationStartRequest;
  /** The replica running the start (absent in records from before replicas: the one process). */
  replica?: string;
}

/** The V1 members of an app conversation that the agent server does not know. */
export interface AppFields {
  selected_repository: string | null;
  selected_branch: string | null;
  git_provider: string | null;
  trigger: string | null;
  pr_number: number[];
  llm_model: string | null;
}

export type MirrorState = ConversationState & { app: AppFields };

export function appFieldsOf(record: ConversationRecord): AppFields {
  return (record.state as unknown as MirrorState).app;
}

export const hex = (id: string) => id.replaceAll('-', '');

export function startTaskJson(task: StartTaskRecord): AppConversationStartTask {
  return {
    id: hex(task.id),
    created_by_user_id: task.ownerId,
    status: task.status,
    detail: task.detail,
    app_conversation_id: task.appConversationId ? hex(task.appConversationId) : null,
    sandbox_id: task.sandboxId,
    agent_server_url: task.agentServerUrl,
    request: task.request,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
  };
}
