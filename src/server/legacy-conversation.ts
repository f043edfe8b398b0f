// OpenHands' legacy app-server conversation shape, served beside the agent-server one ("one port,
// both shapes", issue #11). `GET /api/conversations/{id}` answers ONE object carrying every
// agent-server ConversationInfo member AND the legacy members the web UI reads: the SDK's pydantic
// ConversationInfo is a plain BaseModel (extra members ignored), and the UI's `Conversation` type is
// a TypeScript interface over plain JSON, so each client reads its own members and skips the rest.
// The members both shapes name (`title`, `created_at`, `sub_conversation_ids`) carry values valid
// for both: a string title (never null), an ISO time, hex ids.
import { Type } from 'typebox';
import type { AppConversation, AppConversationService } from '../app/index.js';
import { appFieldsOf, hex } from '../app/records.js';
import type { ConversationInfo } from '../conversation/schemas.js';
import { ConversationInfo as ConversationInfoSchema } from '../conversation/schemas.js';
import type { ConversationService } from '../conversation/service.js';
import { conversationInfo } from '../conversation/state.js';
import { dashedUuid } from '../events/index.js';
import type { PullRequestCheck } from '../git-providers/index.js';
import type { ConversationRecord } from '../store/index.js';
import { UUID_PATTERN } from './schemas.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

// The legacy members, as frontend/src/api/open-hands.types.ts `Conversation` reads them
// (and openhands/server/routes/manage_conversations.py::_to_conversation_info writes them).
const legacyMembers = {
  conversation_id: Type.String({ description: 'The id as 32 hex digits (OpenHands V1)' }),
  title: Type.String({
    description:
      'The title, or "Conversation <first 5 hex digits>" when none was set (never null: the UI needs a string)',
  }),
  last_updated_at: Type.String(),
  status: Type.Union(
    ['STARTING', 'RUNNING', 'STOPPED', 'ARCHIVED', 'ERROR'].map((s) => Type.Literal(s)),
    {
      description:
        "Legacy ConversationStatus: a sandboxed conversation's sandbox status (PAUSED→STOPPED, MISSING→ARCHIVED); a local one is RUNNING (agentd itself runs it)",
    },
  ),
  runtime_status: Nullable(
    Type.String({ description: 'STATUS$READY or STATUS$ERROR from execution_status; null unless RUNNING' }),
  ),
  selected_repository: Nullable(Type.String()),
  selected_branch: Nullable(Type.String()),
  git_provider: Nullable(Type.String()),
  trigger: Nullable(Type.String()),
  pr_number: Type.Array(Type.Integer()),
  num_connections: Type.Integer(),
  url: Nullable(
    Type.String({
      description:
        "Where the UI sends this conversation's calls and opens its WebSocket: the sandbox agent server's conversation_url (null while the sandbox is not running), or for a local conversation the relative /api/conversations/{hex} on this server",
    }),
  ),
  session_api_key: Nullable(
    Type.String({
      description:
        "The sandbox's session key (as AppConversation.session_api_key); null for a local conversation, whose calls go to this server with the UI's own credentials",
    }),
  ),
  conversation_version: Type.Literal('V1'),
  sub_conversation_ids: Type.Array(Type.String()),
};

/**
 * GET /api/conversations/{id} and the legacy list's results: the agent-server ConversationInfo
 * (src/conversation/schemas.ts) plus the legacy members (frontend/src/api/open-hands.types.ts
 * `Conversation`).
 */
export const ConversationInfoBothShapes = Type.Object(
  { ...ConversationInfoSchema.properties, ...legacyMembers },
  { $id: 'ConversationInfoBothShapes' },
);

/** The legacy list, frontend/src/api/open-hands.types.ts `ResultSet<Conversation>`. */
export const LegacyConversationResultSet = Type.Object(
  {
    results: Type.Array(Type.Ref('ConversationInfoBothShapes')),
    next_page_id: Nullable(Type.String()),
  },
  { $id: 'LegacyConversationResultSet' },
);

/** GET /api/conversations/{id}/config, read by frontend/src/hooks/query/use-conversation-config.ts. */
export const LegacyConversationConfig = Type.Object(
  {
    runtime_id: Nullable(
      Type.String({
        description: 'The sandbox id; null for a local conversation (agentd runs it, there is no runtime)',
      }),
    ),
    session_id: Type.String({ description: 'The conversation id as given in the path' }),
  },
  { $id: 'LegacyConversationConfig' },
);

// manage_conversations.py: RUNNING→RUNNING, STARTING→STARTING, PAUSED→STOPPED, ERROR→ERROR,
// MISSING→ARCHIVED, anything else STOPPED.
const SANDBOX_TO_STATUS: Record<string, string> = {
  RUNNING: 'RUNNING',
  STARTING: 'STARTING',
  PAUSED: 'STOPPED',
  ERROR: 'ERROR',
  MISSING: 'ARCHIVED',
};

/** idle/running/paused/waiting_for_confirmation/finished are READY; error, stuck and unknown are ERROR. */
function runtimeStatus(execution: string | null): string {
  return execution &&
    ['idle', 'running', 'paused', 'waiting_for_confirmation', 'finished'].includes(execution)
    ? 'STATUS$READY'
    : 'STATUS$ERROR';
}

/**
 * Both shapes in one object. `app` is the control plane's view of a sandboxed conversation (null for
 * a local one): its conversation_url and session_api_key are taken as they are, so the legacy `url`
 * is exactly what /api/v1/app-conversations answers.
 */
export function bothShapes(info: ConversationInfo, app: AppConversation | null) {
  const id = hex(info.id);
  const title = info.title ?? app?.title ?? `Conversation ${id.slice(0, 5)}`;
  // Object.assign, not `{ ...info, member: … }`: V8 takes a slow path for a spread followed by more
  // members on an object this wide, ~22 µs and ~19 KB of garbage per conversation against ~2 µs
  // (every GET of a conversation, each item of the legacy list).
  if (app) {
    const status = SANDBOX_TO_STATUS[app.sandbox_status] ?? 'STOPPED';
    return Object.assign({}, info, {
      conversation_id: id,
      title,
      last_updated_at: info.updated_at,
      status,
      runtime_status: status === 'RUNNING' ? runtimeStatus(app.execution_status) : null,
      selected_repository: app.selected_repository,
      selected_branch: app.selected_branch,
      git_provider: app.git_provider,
      trigger: app.trigger,
      pr_number: app.pr_number,
      num_connections: 0,
      url: app.conversation_url,
      session_api_key: app.session_api_key,
      conversation_version: 'V1' as const,
      sub_conversation_ids: app.sub_conversation_ids,
    });
  }
  return Object.assign({}, info, {
    conversation_id: id,
    title,
    last_updated_at: info.updated_at,
    status: 'RUNNING',
    runtime_status: runtimeStatus(info.execution_status),
    selected_repository: null,
    selected_branch: null,
    git_provider: null,
    trigger: null,
    pr_number: [],
    num_connections: 0,
    url: `/api/conversations/${id}`,
    session_api_key: null,
    conversation_version: 'V1' as const,
    sub_conversation_ids: info.sub_conversation_ids.map(hex),
  });
}

/** How the routes find the control plane's view of sandboxed conversations. */
export type AppConversationLookup = Pick<AppConversationService, 'getMany'>;

/**
 * One conversation in both shapes. Only a sandboxed conversation has a control-plane view; a local
 * one (most reads, polled while it runs) skips that lookup, which read the record a second time.
 */
export async function withLegacyMembers(
  conversations: ConversationService,
  apps: AppConversationLookup | undefined,
  userId: string,
  record: ConversationRecord,
) {
  const [app] = apps && record.sandboxId ? await apps.getMany(userId, [record.id]) : [null];
  // The control plane's view already read the children: not a second time.
  const info = app
    ? conversationInfo(record, app.sub_conversation_ids.map(dashedUuid))
    : await conversations.infoOf(record);
  return bothShapes(info, app ?? null);
}

/**
 * The legacy page: the conversations newest first (the store's cursor; page ids are hex, as the
 * agent server's search), each in both shapes. The repository and trigger filters apply within the
 * page (the store does not index app fields), so a filtered page can be shorter than `limit`.
 */
export async function legacyPage(
  conversations: ConversationService,
  apps: AppConversationLookup | undefined,
  userId: string,
  q: {
    limit: number;
    pageId?: string;
    selectedRepository?: string;
    trigger?: string;
    includeSubConversations?: boolean;
  },
) {
  // OpenHands leaves sub-conversations out unless include_sub_conversations is true.
  const page = await conversations.search(userId, {
    pageId: q.pageId ? conversationPageId(q.pageId) : undefined,
    limit: q.limit,
    sort: 'CREATED_AT_DESC',
    hasParent: q.includeSubConversations ? undefined : false,
  });
  // The filters read the record (a local conversation has neither member): only what they keep is
  // shaped, its control-plane view and info read.
  const kept = page.items.filter((r) => {
    const app = apps && r.sandboxId ? appFieldsOf(r) : null;
    return (
      (q.selectedRepository === undefined || (app?.selected_repository ?? null) === q.selectedRepository) &&
      (q.trigger === undefined || (app?.trigger ?? null) === q.trigger)
    );
  });
  const sandboxed = kept.filter((r) => r.sandboxId).map((r) => r.id);
  const views = apps && sandboxed.length > 0 ? await apps.getMany(userId, sandboxed) : [];
  const byId = new Map(views.filter((v): v is AppConversation => v !== null).map((v) => [v.id, v]));
  const infos = await conversations.infos(kept);
  const results = kept.map((r, i) => bothShapes(infos[i]!, byId.get(hex(r.id)) ?? null));
  return { results, next_page_id: page.nextPageId ? hex(page.nextPageId) : null };
}

const UUID = new RegExp(UUID_PATTERN);

/** Conversation page ids are emitted as 32 hex digits (OpenHands); accept them dashed too. */
export function conversationPageId(pageId: string): string {
  return UUID.test(pageId) ? dashedUuid(pageId) : pageId;
}

/** Conversations one legacy page reads at a time (what its route's `limit` allows). */
const LEGACY_PAGE = 100;
/** Pull requests whose state one microagent listing asks GitHub for at once. */
const PULL_REQUEST_CHECKS_AT_ONCE = 8;

/**
 * OpenHands' GET /api/microagent-management/conversations: among the user's newest `limit`
 * conversations from `pageId` (read a page at a time), those its microagent management page started
 * for `repository` (trigger `microagent_management`), less those whose last pull request is closed
 * or merged (`pullRequestOpen` answers true where it cannot tell). `next_page_id` goes on from there.
 */
export async function microagentManagementPage(
  conversations: ConversationService,
  apps: AppConversationLookup | undefined,
  userId: string,
  q: { repository: string; limit: number; pageId?: string },
  pullRequestOpen: PullRequestCheck,
) {
  const found: ReturnType<typeof bothShapes>[] = [];
  let pageId = q.pageId;
  let scanned = 0;
  let next: string | null;
  do {
    const size = Math.min(LEGACY_PAGE, q.limit - scanned);
    const page = await legacyPage(conversations, apps, userId, {
      limit: size,
      pageId,
      selectedRepository: q.repository,
      trigger: 'microagent_management',
    });
    found.push(...page.results);
    scanned += size;
    next = page.next_page_id;
    pageId = next ?? undefined;
  } while (next && scanned < q.limit);
  const stillOpen = (c: (typeof found)[number]) => {
    const last = c.pr_number.at(-1);
    return last === undefined || !c.selected_repository
      ? true
      : pullRequestOpen(c.git_provider, c.selected_repository, last);
  };
  const open: boolean[] = [];
  for (let i = 0; i < found.length; i += PULL_REQUEST_CHECKS_AT_ONCE)
    open.push(...(await Promise.all(found.slice(i, i + PULL_REQUEST_CHECKS_AT_ONCE).map(stillOpen))));
  return { results: found.filter((_, i) => open[i]), next_page_id: next };
}

/** GET /api/conversations/{id}/config: OpenHands' V1 answer is {runtime_id: sandbox_id, session_id: path id}. */
export async function legacyConfig(
  conversations: ConversationService,
  userId: string,
  id: string,
  given: string,
) {
  const record = await conversations.get(userId, id);
  return { runtime_id: record.sandboxId ?? null, session_id: given };
}
