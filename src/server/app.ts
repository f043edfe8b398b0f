// Builds the Fastify application: validation and error mapping, auth, OpenAPI, and one plugin
// per route family. The domain is reached only through the services passed in.
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ExtensionsRepository } from '../agent/index.js';
import type { AppConversationService } from '../app/index.js';
import { BashService } from '../bash/index.js';
import type { EventBus } from '../bus/index.js';
import type { Ownership } from '../cluster/index.js';
import type { EventQueries, OwnerEventQueries } from '../conversation/event-queries.js';
import type { ConversationService } from '../conversation/service.js';
import type { ChatGateway } from '../gateway/openai.js';
import type { GitProviders } from '../git-providers/index.js';
import type { SandboxProviderKind, SandboxService, SandboxSpecs } from '../sandbox/index.js';
import { SavedWorkspaces, type SettingsService } from '../settings/index.js';
import type { Store } from '../store/index.js';
import { McpOAuthJobs, type OAuthJobLimits } from '../tools/index.js';
import { installAuth, type RouteEntry } from './auth.js';
import { limitBodyStalls } from './body-stall.js';
import { installCors } from './cors.js';
import {
  BODY_LIMIT,
  clientErrorHandler,
  drainUnreadBodies,
  frameworkErrors,
  MAX_PARAM_LENGTH,
} from './framework-errors.js';
import { answerHeadWithGet } from './head.js';
import { installLocalOnly } from './local-only.js';
import { loggerOptions, RequestLogController } from './logging.js';
import { installOpenApi } from './openapi.js';
import { ReplicaCalls } from './replica-calls.js';
import { agentProfileRoutes } from './routes/agent-profiles.js';
import { appSecretRoutes } from './routes/app-secrets.js';
import { bashRoutes } from './routes/bash.js';
import { conversationBranchRoutes } from './routes/conversation-branches.js';
import { conversationGoalRoutes } from './routes/conversation-goal.js';
import { conversationPolicyRoutes } from './routes/conversation-policies.js';
import { conversationRoutes } from './routes/conversations.js';
import { eventRoutes } from './routes/events.js';
import { fileRoutes } from './routes/files.js';
import { gitRoutes } from './routes/git.js';
import { gitProviderRoutes } from './routes/git-providers.js';
import { healthRoutes } from './routes/health.js';
import { hookRoutes } from './routes/hooks.js';
import { llmRoutes } from './routes/llm.js';
import { mcpOAuthRoutes } from './routes/mcp-oauth.js';
import { microagentManagementRoutes } from './routes/microagent-management.js';
import { openaiRoutes } from './routes/openai.js';
import { optionRoutes } from './routes/options.js';
import { pluginRoutes } from './routes/plugins.js';
import { profileRoutes } from './routes/profiles.js';
import { providerConnectionRoutes } from './routes/provider-connections.js';
import { savedWorkspaceRoutes } from './routes/saved-workspaces.js';
import { settingsRoutes } from './routes/settings.js';
import { skillRoutes } from './routes/skills.js';
import { socketRoutes } from './routes/sockets.js';
import { subAgentRoutes } from './routes/sub-agents.js';
import { toolRoutes } from './routes/tools.js';
import { appConversationRoutes } from './routes/v1/app-conversations.js';
import { v1EventRoutes } from './routes/v1/events.js';
import { sandboxSettingsRoutes } from './routes/v1/sandbox-settings.js';
import { sandboxRoutes } from './routes/v1/sandboxes.js';
import { userRoutes } from './routes/v1/users.js';
import { vscodeRoutes } from './routes/vscode.js';
import { webRoutes } from './routes/web.js';
import { workspaceRoutes } from './routes/workspace.js';
import { schemaBucket } from './schema-bucket.js';
import { boundShutdownWait } from './shutdown-grace.js';
import { createCompilers, installErrorHandler } from './validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route with who may call it (deny by default; see auth.ts). */
    routeTable: readonly RouteEntry[];
    /** The calls other replicas may send this one's routes (replica-calls.ts). */
    replicaCalls: ReplicaCalls;
  }
}

export interface AppDeps {
  sessionApiKeys: readonly string[];
  store: Store;
  bus: EventBus;
  settings: SettingsService;
  /** Let callers read secrets in clear (X-Expose-Secrets: plaintext, secret values); default off. */
  exposeSecrets?: boolean;
  conversations: ConversationService;
  events: EventQueries;
  /** The OpenAI-compatible gateway (/v1/models, /v1/chat/completions). */
  gateway: ChatGateway;
  /** false silences request logs (tests); default logs JSON lines at info. */
  logger?: boolean | { level: string };
  /** Names the tool registry offers, for /server_info and /api/tools/. */
  toolNames: readonly string[];
  /** WebSocket tuning (tests and benchmarks). */
  sockets?: { maxBufferedBytes?: number; maxSubscribers?: number; authTimeoutMs?: number };
  /** Serve the interactive docs at /docs (default true). */
  docsUi?: boolean;
  /** Runs /api/bash commands; by default one made here with its default limits, ended when the app closes. */
  bash?: BashService;
  /** Largest upload to /api/file/upload in bytes (default 1 GiB). */
  maxUploadBytes?: number;
  /** How long a request body may stop arriving before a 408 (default 60 s; tests use a short one). */
  bodyStallMs?: number;
  /** The home folder POST /api/skills and /api/sub-agents read the user's skills and sub-agents from (default the process user's). */
  skillsHome?: string;
  /** The public extensions repository (public skills, the marketplaces); default none. */
  extensions?: ExtensionsRepository | null;
  /** Browser origins allowed cross-origin calls (CORS; see cors.ts); default none (same origin only). */
  corsOrigins?: readonly string[];
  /** The V1 control plane (/api/v1); absent in an agent server inside a sandbox. */
  controlPlane?: ControlPlaneDeps;
  /**
   * MCP OAuth: its jobs' limits (default OpenHands' 15 minutes, 5 per user) and the origin the
   * browser comes back to (AGENTD_PUBLIC_URL; default the host each start request was sent to).
   */
  mcpOAuth?: { limits?: OAuthJobLimits; publicUrl?: string };
  /** This replica among others (cluster/): its id and the forwarding to the others; default alone. */
  replicas?: { id: string; ownership: Pick<Ownership, 'forward'> };
}

export interface ControlPlaneDeps {
  sandboxes: SandboxService;
  /** The kind of sandbox this control plane runs (bwrap, or process where bwrap cannot run). */
  sandboxProvider: SandboxProviderKind;
  specs: SandboxSpecs;
  apps: AppConversationService;
  events: OwnerEventQueries;
  /** The users' GitHub tokens and what GitHub shows them (the web UI's repository picker). */
  gitProviders: GitProviders;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const compilers = createCompilers();
  const app = Fastify({
    logger: loggerOptions(deps.logger ?? true),
    logController: new RequestLogController(),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    exposeHeadRoutes: false, // answered by the GET routes (head.ts)
    // No timer per plugin: avvio arms one (Fastify's 10 s plugin timeout) for each plugin and for each
    // route's set-up step, ~230 at a start, all cleared within it (app phase −2.3 ms, medians of 31
    // alternated starts). Every plugin here only registers (agentd's routes, cors, swagger,
    // websocket, multipart): none waits on I/O, which is what that timeout reports.
    pluginTimeout: 0,
    // Errors from before a route runs, in the {detail} shape like the rest.
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: compilers.compilersFactory, bucket: schemaBucket },
  });
  answerHeadWithGet(app.server);
  boundShutdownWait(app);
  compilers.install(app);
  installErrorHandler(app);
  drainUnreadBodies(app);
  limitBodyStalls(app, deps.bodyStallMs);
  if (deps.sessionApiKeys.length === 0) installLocalOnly(app, deps.corsOrigins ?? []);
  const sandboxes = deps.controlPlane?.sandboxes;
  const { sessionKeys, routes } = await installAuth(
    app,
    deps.sessionApiKeys,
    () => installCors(app, deps.corsOrigins ?? []),
    sandboxes && ((id) => sandboxes.liveCredentials(id)),
  );
  app.decorate('routeTable', routes);
  let lastActivity = 0;
  app.addHook('onResponse', (request, _reply, done) => {
    if (!request.is404 && (request.routeOptions.config.access ?? 'key') !== 'public')
      lastActivity = Date.now();
    done();
  });
  await installOpenApi(app, { controlPlane: deps.controlPlane !== undefined, docsUi: deps.docsUi ?? true });

  await app.register(healthRoutes, { usableTools: deps.toolNames, lastActivity: () => lastActivity });
  await app.register(webRoutes);
  await app.register(conversationRoutes, {
    conversations: deps.conversations,
    apps: deps.controlPlane?.apps,
  });
  await app.register(conversationBranchRoutes, { conversations: deps.conversations });
  await app.register(conversationPolicyRoutes, { conversations: deps.conversations });
  await app.register(conversationGoalRoutes, { conversations: deps.conversations });
  await app.register(workspaceRoutes, { conversations: deps.conversations, sessionKeys });
  await app.register(hookRoutes);
  const replicaCalls = new ReplicaCalls(deps.replicas?.id ?? randomUUID(), deps.replicas?.ownership);
  app.decorate('replicaCalls', replicaCalls);
  const oauthJobs = new McpOAuthJobs(deps.mcpOAuth?.limits, replicaCalls.tag);
  app.addHook('onClose', async () => oauthJobs.close());
  await app.register(mcpOAuthRoutes, {
    settings: deps.settings,
    jobs: oauthJobs,
    replicas: replicaCalls,
    publicUrl: deps.mcpOAuth?.publicUrl,
  });
  await app.register(eventRoutes, { events: deps.events, conversations: deps.conversations });
  await app.register(settingsRoutes, { settings: deps.settings, exposeSecrets: deps.exposeSecrets ?? false });
  await app.register(llmRoutes);
  await app.register(providerConnectionRoutes, { settings: deps.settings });
  await app.register(openaiRoutes, { gateway: deps.gateway });
  await app.register(savedWorkspaceRoutes, { workspaces: new SavedWorkspaces(deps.store.settings) });
  await app.register(profileRoutes, { settings: deps.settings, exposeSecrets: deps.exposeSecrets ?? false });
  await app.register(toolRoutes, { toolNames: deps.toolNames });
  await app.register(gitRoutes);
  await app.register(vscodeRoutes);
  const bash = deps.bash ?? new BashService();
  app.addHook('onClose', () => bash.close());
  await app.register(bashRoutes, { bash });
  await app.register(fileRoutes, {
    conversations: deps.conversations,
    store: deps.store,
    maxUploadBytes: deps.maxUploadBytes,
  });
  const extensions = deps.extensions ?? null;
  await app.register(skillRoutes, { home: deps.skillsHome ?? homedir(), extensions });
  await app.register(agentProfileRoutes, { settings: deps.settings, home: deps.skillsHome ?? homedir() });
  await app.register(pluginRoutes, { home: deps.skillsHome ?? homedir(), extensions });
  await app.register(subAgentRoutes, { home: deps.skillsHome ?? homedir() });
  await app.register(socketRoutes, {
    sessionKeys,
    conversations: deps.conversations,
    bus: deps.bus,
    store: deps.store,
    bash,
    ...deps.sockets,
  });
  const v1 = deps.controlPlane;
  if (v1) {
    await app.register(v1EventRoutes, { events: v1.events });
    await app.register(appConversationRoutes, { apps: v1.apps });
    await app.register(sandboxRoutes, { sandboxes: v1.sandboxes, specs: v1.specs });
    await app.register(userRoutes, { settings: deps.settings, exposeSecrets: deps.exposeSecrets ?? false });
    await app.register(sandboxSettingsRoutes, {
      settings: deps.settings,
      exposeSecrets: deps.exposeSecrets ?? false,
    });
    // OpenHands' app-server options (the web UI's mode, feature flags and settings choices) and its
    // custom-secrets routes (the web UI's Secrets page).
    await app.register(optionRoutes);
    await app.register(appSecretRoutes, { settings: deps.settings });
    await app.register(gitProviderRoutes, { providers: v1.gitProviders });
    await app.register(microagentManagementRoutes, {
      conversations: deps.conversations,
      apps: v1.apps,
      providers: v1.gitProviders,
    });
  }
  return app;
}
