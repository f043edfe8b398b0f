// The composition root: opens the store, builds the services and the HTTP application, and
// recovers conversations a previous process left running. `agentd serve` and the tests use it.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type EventBus, MemoryBus } from '../bus/index.js';
import { EventLog } from '../conversation/event-log.js';
import { EventQueries } from '../conversation/event-queries.js';
import { ConversationService } from '../conversation/service.js';
import type { HookConfig } from '../hooks/index.js';
import type { PriceTable } from '../llm/index.js';
import { loadSecretBox, SettingsService } from '../settings/index.js';
import { openSqliteStore, type Store } from '../store/index.js';
import { McpPool, registeredToolNames } from '../tools/index.js';
import { type AppDeps, buildApp } from './app.js';

export interface AgentdOptions {
  dataDir: string;
  sessionApiKeys: readonly string[];
  logger?: AppDeps['logger'];
  /** Environment for the secret key (OH_SECRET_KEY); defaults to process.env. */
  env?: Record<string, string | undefined>;
  sockets?: AppDeps['sockets'];
  /** Tool options (e.g. short terminal timeouts in tests). */
  toolOptions?: Record<string, unknown>;
  idleTimeoutMs?: number;
  /** Server-wide hooks, run in every conversation (e.g. from AGENTD_HOOKS_FILE). */
  hooks?: HookConfig | null;
  /** Price overrides (e.g. from AGENTD_PRICING_FILE) over the built-in table. */
  prices?: PriceTable;
}

export interface Agentd {
  app: FastifyInstance;
  store: Store;
  bus: EventBus;
  log: EventLog;
  conversations: ConversationService;
  mcp: McpPool;
  close(): Promise<void>;
}

export async function startAgentd(options: AgentdOptions): Promise<Agentd> {
  const store = openSqliteStore({ path: join(options.dataDir, 'agentd.db') });
  const bus = new MemoryBus();
  const secretBox = loadSecretBox({ dataDir: options.dataDir, env: options.env ?? process.env });
  const settings = new SettingsService(store.settings, secretBox);
  const log = new EventLog(store, bus);
  const mcp = new McpPool();
  const conversations = new ConversationService({
    store,
    log,
    settings,
    secretBox,
    dataDir: options.dataDir,
    toolOptions: options.toolOptions,
    idleTimeoutMs: options.idleTimeoutMs,
    mcp,
    hooks: options.hooks ?? null,
    prices: options.prices,
  });
  await conversations.recover();
  const app = await buildApp({
    sessionApiKeys: options.sessionApiKeys,
    store,
    bus,
    settings,
    conversations,
    events: new EventQueries(store),
    logger: options.logger,
    toolNames: registeredToolNames(),
    sockets: options.sockets,
  });
  let closed = false;
  return {
    app,
    store,
    bus,
    log,
    conversations,
    mcp,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await conversations.close();
      await mcp.close();
      await bus.close();
      await store.close();
    },
  };
}
