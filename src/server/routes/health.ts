// Liveness, readiness and server details; no auth, as in OpenHands.
import type { FastifyPluginAsync } from 'fastify';
import { ServerInfo, StatusOk } from '../schemas.js';

export interface HealthOptions {
  usableTools: readonly string[];
}

const VERSION = '0.1.0';

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  const startedAt = Date.now();
  let lastActivity = startedAt;
  app.addHook('onResponse', async (request) => {
    if (request.url.startsWith('/api/')) lastActivity = Date.now();
  });

  const ok = { schema: { tags: ['Server Details'], response: { 200: StatusOk } } };
  app.get('/alive', ok, async () => ({ status: 'ok' }));
  app.get('/health', ok, async () => ({ status: 'ok' }));
  app.get('/ready', ok, async () => ({ status: 'ready' }));

  const info = () => {
    const now = Date.now();
    return {
      uptime: Math.floor((now - startedAt) / 1000),
      idle_time: Math.floor((now - lastActivity) / 1000),
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
  const infoRoute = { schema: { tags: ['Server Details'], response: { 200: ServerInfo } } };
  app.get('/server_info', infoRoute, async () => info());
  app.get('/', { schema: { ...infoRoute.schema, hide: true } }, async () => info());
};
