// /api/plugins (OpenHands'): the plugins every conversation gets (POST /api/plugins: the user's and the
// enabled installed ones, agent/plugins.ts) and the installed plugins (install, list, enable or
// disable, uninstall, refresh: installations.ts' routes). They read and write plugin folders with the
// server's own rights, like the file routes.
import type { FastifyPluginAsync } from 'fastify';
import {
  ambientPlugins,
  InstalledPluginResponse,
  installedPlugins,
  PluginsRequest,
  PluginsResponse,
  pluginContents,
  readPluginAt,
} from '../../agent/index.js';
import { errorResponses } from '../schemas.js';
import { installationRoutes } from './installations.js';

export const pluginRoutes: FastifyPluginAsync<{ home: string }> = async (app, { home }) => {
  app.post(
    '/api/plugins',
    {
      schema: {
        tags: ['Plugins'],
        summary: 'Get Plugins',
        description:
          "The plugins every conversation gets: the user's (~/.agents/plugins, ~/.openhands/plugins), then the enabled installed ones, the first of a name winning; with load_user false, none. A workspace's plugins are not loaded (their hooks and MCP servers would run unasked): load_project adds none; a start takes one by source (`plugins`).",
        body: PluginsRequest,
        response: { 200: PluginsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { load_user = true } = request.body as { load_user?: boolean };
      const plugins = load_user ? ambientPlugins(home) : [];
      return {
        plugins: plugins.map((p) => ({
          name: p.name,
          version: p.version,
          description: p.description,
          path: p.path,
          ...pluginContents(p),
        })),
      };
    },
  );

  installationRoutes(app, {
    prefix: '/api/plugins',
    kind: 'Plugin',
    installations: installedPlugins(home),
    answer: (info) => {
      let contents: ReturnType<typeof pluginContents> | { skills: null; files: null };
      try {
        contents = pluginContents(readPluginAt(info.install_path));
      } catch {
        contents = { skills: null, files: null };
      }
      return { ...info, ...contents };
    },
    response: InstalledPluginResponse,
    about:
      'Installs a plugin (the Claude Code layout: its manifest names it) into ~/.openhands/plugins/installed/<name>. Every conversation gets the enabled installed plugins: their skills, commands, hooks and MCP servers.',
  });
};
