// The composition root: opens the store, builds the services and the HTTP application, and
// recovers conversations a previous process left running. `agentd serve` and the tests use it.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ExtensionsRepository } from '../agent/index.js';
import { AppConversationService } from '../app/index.js';
import { type EventBus, MemoryBus, RedisBus } from '../bus/index.js';
import { ClusterOwnership, LocalOwnership, type Ownership } from '../cluster/index.js';
import { EventLog } from '../conversation/event-log.js';
import { EventQueries, OwnerEventQueries } from '../conversation/event-queries.js';
import { ConversationService } from '../conversation/service.js';
import { ChatGateway } from '../gateway/openai.js';
import { GitProviders } from '../git-providers/index.js';
import type { HookConfig } from '../hooks/index.js';
import type { Logger, PriceTable } from '../llm/index.js';
import { loopTurns } from '../loop/index.js';
import { markPhase } from '../runtime/heap.js';
import {
  type BwrapProviderOptions,
  bwrapUnavailable,
  chooseSandboxProvider,
  type SandboxProviderKind,
  SandboxService,
  SandboxSpecs,
} from '../sandbox/index.js';
import { loadSecretBox, SettingsService } from '../settings/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../store/index.js';
import { McpPool, registeredToolNames } from '../tools/index.js';
import { type AppDeps, buildApp, type ControlPlaneDeps } from './app.js';

export interface AgentdOptions {
  dataDir: string;
  /** A PostgreSQL URL (--database-url): the store several replicas share; default SQLite in dataDir. */
  databaseUrl?: string;
  sessionApiKeys: readonly string[];
  logger?: AppDeps['logger'];
  /**
   * Where the services log (LLM retries and failures, failed runs, conversations cut off by a
   * restart); default the HTTP app's logger, so one stream carries everything.
   */
  serviceLogger?: Logger;
  /** Environment for the secret key (OH_SECRET_KEY); defaults to process.env. */
  env?: Record<string, string | undefined>;
  sockets?: AppDeps['sockets'];
  /**
   * Let callers read secrets in clear: GET /api/settings with X-Expose-Secrets: plaintext and GET
   * /api/settings/secrets/{name} (--expose-secrets, AGENTD_EXPOSE_SECRETS=1). Default off.
   */
  exposeSecrets?: boolean;
  /** Browser origins allowed cross-origin calls (CORS, see cors.ts); default none: same origin only. */
  corsOrigins?: readonly string[];
  /** Serve the interactive docs at /docs (default true; `agentd agent` in a sandbox skips them). */
  docsUi?: boolean;
  /** Tool options (e.g. short terminal timeouts in tests). */
  toolOptions?: Record<string, unknown>;
  /** A conversation's runtime unused this long is closed (default 20 minutes). */
  idleTimeoutMs?: number;
  /** Conversation runtimes kept in memory at most (default 64); past it the least recently used idle one closes. */
  maxLiveConversations?: number;
  /**
   * The V1 control plane (sandboxes, app conversations); on unless false. `agentd agent`, the
   * server inside a sandbox, runs without it.
   */
  controlPlane?: false | ControlPlaneOptions;
  /** Server-wide hooks, run in every conversation (e.g. from AGENTD_HOOKS_FILE). */
  hooks?: HookConfig | null;
  /** The web search server a user's search_api_key connects (AGENTD_SEARCH_MCP_URL); default Tavily's. */
  searchMcpUrl?: string;
  /** The GitHub API every user's token goes to (AGENTD_GITHUB_API_URL); default by the token's host. */
  githubApiUrl?: string;
  /** Largest upload to /api/file/upload in bytes (default 1 GiB). */
  maxUploadBytes?: number;
  /** How long a request body may stop arriving before a 408 (default 60 s; tests use a short one). */
  bodyStallMs?: number;
  /** Price overrides (e.g. from AGENTD_PRICING_FILE) over the built-in table. */
  prices?: PriceTable;
  /** Where the user's skills and sub-agents are read (default the home folder; tests use their own). */
  skillsHome?: string;
  /**
   * The public extensions repository (public skills, the marketplaces), kept under
   * `<dataDir>/extensions`; default none (the CLI's default is OpenHands/extensions).
   */
  extensions?: { url: string; ref: string } | null;
  /** Redis for events across replicas; unset: the in-memory bus of one process. */
  redisUrl?: string;
  /**
   * Several replicas: conversation leases in this PostgreSQL database, calls forwarded over the
   * Redis of `redisUrl` (both needed); unset: this process runs every conversation.
   */
  cluster?: { databaseUrl: string; leaseSeconds?: number };
  /** MCP OAuth: job limits (tests shorten them) and the public origin (AGENTD_PUBLIC_URL). */
  mcpOAuth?: AppDeps['mcpOAuth'];
}

export interface ControlPlaneOptions {
  /** Sandboxes STARTING or RUNNING at once; default 10. */
  maxSandboxes?: number;
  /** Keep a sandbox booted ahead for the next start (default true). */
  warmSpare?: boolean;
  specs?: SandboxSpecs;
  /**
   * Which sandboxes: `bwrap` (namespaces; fails where bwrap cannot run) or `process`; default bwrap
   * where it runs, else process with a warning.
   */
  sandboxProvider?: SandboxProviderKind;
  provider?: BwrapProviderOptions;
  /**
   * Origins each sandbox's agent server allows (AGENTD_CORS_ORIGINS in its environment): the control
   * plane's own, whose web UI calls the sandboxes directly, and any configured. Default none.
   */
  sandboxCorsOrigins?: readonly string[];
  /** Where the one warning line goes when sandboxes fall back to plain processes; default stderr. */
  warn?: (line: string) => void;
}

export interface Agentd {
  app: FastifyInstance;
  store: Store;
  bus: EventBus;
  log: EventLog;
  conversations: ConversationService;
  mcp: McpPool;
  controlPlane: ControlPlaneDeps | null;
  close(): Promise<void>;
}

export async function startAgentd(options: AgentdOptions): Promise<Agentd> {
  // The bwrap check (a child process) runs meanwhile; the control plane waits for it below.
  const cp = options.controlPlane;
  if (cp !== false && cp?.sandboxProvider !== 'process') void bwrapUnavailable(cp?.provider);
  // Engines first: one that cannot be reached stops the start before anything is opened.
  const bus: EventBus = options.redisUrl ? await RedisBus.connect(options.redisUrl) : new MemoryBus();
  const store = options.databaseUrl
    ? await openPostgresStore({ url: options.databaseUrl })
    : openSqliteStore({
        path: join(options.dataDir, 'agentd.db'),
        // Starts waiting for their turn append soon: their commits may share one.
        holdWritesOpen: () => loopTurns.waiting('request') > 0,
      });
  markPhase('agentd:store open');
  const secretBox = loadSecretBox({ dataDir: options.dataDir, env: options.env ?? process.env });
  const settings = new SettingsService(store.settings, secretBox);
  const log = new EventLog(store, bus);
  const mcp = new McpPool();
  // The services start before the HTTP app (and its logger) exists; they log through it once it does,
  // and recovery below runs after it is built, so its lines are not lost.
  let app: FastifyInstance | null = null;
  const serviceLogger: Logger = options.serviceLogger ?? {
    warn: (fields, message) => app?.log.warn(fields, message),
    error: (fields, message) => app?.log.error(fields, message),
  };
  const ownership: Ownership =
    options.cluster && options.redisUrl
      ? await ClusterOwnership.open({
          databaseUrl: options.cluster.databaseUrl,
          redisUrl: options.redisUrl,
          leaseSeconds: options.cluster.leaseSeconds,
          warn: (fields, message) => serviceLogger.warn(fields, message),
        })
      : new LocalOwnership();
  const extensions = options.extensions
    ? extensionsRepository(options.extensions, options.dataDir, (line) => serviceLogger.warn({}, line))
    : null;
  const conversations = new ConversationService({
    ownership,
    store,
    log,
    settings,
    secretBox,
    dataDir: options.dataDir,
    toolOptions: options.toolOptions,
    idleTimeoutMs: options.idleTimeoutMs,
    maxLiveConversations: options.maxLiveConversations,
    mcp,
    hooks: options.hooks ?? null,
    searchMcpUrl: options.searchMcpUrl,
    prices: options.prices,
    logger: serviceLogger,
    skillsHome: options.skillsHome,
    extensions,
  });
  // The control plane starts before the HTTP app exists; its background errors go to the app's log.
  const logError = (error: Error, context: string) => app?.log.warn({ err: error }, context);
  const controlPlane =
    options.controlPlane === false
      ? null
      : await startControlPlane(options.controlPlane ?? {}, {
          store,
          log,
          settings,
          secretBox,
          dataDir: options.dataDir,
          searchMcpUrl: options.searchMcpUrl,
          githubApiUrl: options.githubApiUrl,
          logError,
        });
  if (controlPlane) {
    conversations.deleteSandboxed = (record) => controlPlane.apps.delete(record);
    conversations.renameSandboxed = (record, title) => controlPlane.apps.rename(record, title);
  }
  app = await buildApp({
    sessionApiKeys: options.sessionApiKeys,
    store,
    bus,
    settings,
    conversations,
    events: new EventQueries(store),
    gateway: new ChatGateway({ conversations, settings, workspaceRoot: join(options.dataDir, 'gateway') }),
    logger: options.logger,
    toolNames: registeredToolNames(),
    sockets: options.sockets,
    controlPlane: controlPlane ?? undefined,
    docsUi: options.docsUi,
    exposeSecrets: options.exposeSecrets,
    mcpOAuth: options.mcpOAuth,
    replicas: { id: ownership.replicaId, ownership },
    corsOrigins: options.corsOrigins,
    maxUploadBytes: options.maxUploadBytes,
    bodyStallMs: options.bodyStallMs,
    skillsHome: options.skillsHome,
    extensions,
  });
  markPhase('agentd:app built');
  await conversations.recover();
  conversations.serveReplicas((request) => app?.replicaCalls.handlerOf(request));
  let closed = false;
  return {
    app,
    store,
    bus,
    log,
    conversations,
    mcp,
    controlPlane,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await controlPlane?.apps.close();
      await controlPlane?.sandboxes.close();
      await conversations.close();
      await ownership.close();
      await mcp.close();
      await bus.close();
      await store.close();
    },
  };
}

/** Sandboxes and app conversations; after a restart, reconciles sandboxes and resumes event syncs. */
async function startControlPlane(
  options: ControlPlaneOptions,
  deps: Pick<
    ConstructorParameters<typeof AppConversationService>[0],
    'store' | 'log' | 'settings' | 'searchMcpUrl' | 'logError'
  > & {
    secretBox: ReturnType<typeof loadSecretBox>;
    dataDir: string;
    /** The GitHub API every token goes to (AGENTD_GITHUB_API_URL); default by the token's host. */
    githubApiUrl?: string;
  },
): Promise<ControlPlaneDeps> {
  const specs = options.specs ?? new SandboxSpecs();
  // The data folder (keys, database, other sandboxes) stays hidden even where it lies under a
  // folder a bwrap sandbox reads (e.g. inside the package folder).
  const chosen = await chooseSandboxProvider(options.sandboxProvider, {
    ...options.provider,
    hide: [deps.dataDir, ...(options.provider?.hide ?? [])],
    corsOrigins: options.sandboxCorsOrigins ?? options.provider?.corsOrigins,
  });
  const warn = options.warn ?? ((line) => process.stderr.write(`agentd: warning: ${line}\n`));
  if (chosen.warning) warn(chosen.warning);
  const sandboxes = new SandboxService({
    store: deps.store,
    provider: chosen.provider,
    specs,
    secretBox: deps.secretBox,
    dataDir: deps.dataDir,
    maxRunning: options.maxSandboxes,
    warmSpare: options.warmSpare,
  });
  const apps = new AppConversationService({ ...deps, sandboxes });
  await apps.recover(await sandboxes.reconcile());
  return {
    sandboxes,
    sandboxProvider: chosen.kind,
    specs,
    apps,
    events: new OwnerEventQueries(deps.store, new EventQueries(deps.store)),
    gitProviders: new GitProviders(deps.settings, deps.githubApiUrl),
  };
}

/** One clone per repository and ref under the data folder: changing either starts a fresh one. */
function extensionsRepository(
  { url, ref }: { url: string; ref: string },
  dataDir: string,
  warn: (line: string) => void,
) {
  const key = createHash('sha256').update(`${url}\n${ref}`).digest('hex').slice(0, 16);
  return new ExtensionsRepository({ url, ref, dir: join(dataDir, 'extensions', key), warn });
}
