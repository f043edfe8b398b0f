// Liveness, readiness and server details; public (no key), as in OpenHands. / is also the web UI's page.
import type { FastifyPluginAsync } from 'fastify';
import { ServerInfo, StatusOk } from '../schemas.js';
import { rootPage } from './web.js';

export interface HealthOptions {
  usableTools: readonly string[];
  /** When a protected route last answered (server_info's idle_time counts from it). */
  lastActivity: () => number;
}

const publicRoute = { access: 'public' as const };

const VERSION = '0.1.0';

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  const startedAt = Date.now();
  const ok = { config: publicRoute, schema: { tags: ['Server Details'], response: { 200: StatusOk } } };
  app.get('/alive', ok, async () => ({ status: 'ok' }));
  app.get('/health', ok, async () => ({ status: 'ok' }));
  app.get('/ready', ok, async () => ({ status: 'ready' }));

  const info = () => {
    const now = Date.now();
    return {
      uptime: Math.floor((now - startedAt) / 1000),
      idle_time: Math.floor((now - Math.max(startedAt, options.lastActivity())) / 1000),
      title: 'agentd',
      version: VERSION,
      sdk_version: VERSION,
      tools_version: VERSION,
      workspace_version: VERSION,
      build_git_sha: process.env.AGENTD_BUILD_GIT_SHA ?? 'unknown',
      build_git_ref: process.env.AGENTD_BUILD_GIT_REF ?? 'unknown',
      python_version: 'n/a',
      node_version: process.version,
      usable_tools: [...options.usableTools],
      runtime_idle_timeout_seconds: null,
      capabilities: [],
      max_foreground_terminal_timeout_seconds: null,
      docs: '/docs',
      redoc: '/docs',
    };
  };
  const infoSchema = { tags: ['Server Details'], response: { 200: ServerInfo } };
  app.get('/server_info', { config: publicRoute, schema: infoSchema }, async () => info());
  // A browser at / gets the web UI; OpenHands clients read server_info there.
  app.get(
    '/',
    { config: publicRoute, schema: { ...infoSchema, hide: true } },
    async (request, reply) => rootPage(request, reply) ?? info(),
  );
};
