// /api/plugins (OpenHands'): the plugins every conversation gets (POST /api/plugins: the user's and the
// enabled installed ones, agent/plugins.ts) and the installed plugins (install, list, enable or
// disable, uninstall, refresh: installations.ts' routes) and the public extensions repository's
// marketplace of plugins (GET /api/plugins/marketplace). They read and write plugin folders with the
// server's own rights, like the file routes.
import type { FastifyPluginAsync } from 'fastify';
import {
  ambientPlugins,
  type ExtensionsRepository,
  InstalledPluginResponse,
  installedPlugins,
  MarketplacePluginsResponse,
  marketplacePlugins,
  PluginsRequest,
  PluginsResponse,
  pluginContents,
  readPluginAt,
} from '../../agent/index.js';
import { errorResponses } from '../schemas.js';
import { installationRoutes } from './installations.js';
import { marketplaceOf, marketplaceResponses } from './marketplace.js';

export interface PluginRoutesOptions {
  home: string;
  /** The public extensions repository, whose marketplace lists plugins; null: none. */
  extensions: ExtensionsRepository | null;
}

export const pluginRoutes: FastifyPluginAsync<PluginRoutesOptions> = async (app, { home, extensions }) => {
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

  app.get(
    '/api/plugins/marketplace',
    {
      schema: {
        tags: ['Plugins'],
        summary: 'Get Marketplace Catalog',
        description:
          "The plugins the public extensions repository's marketplace lists (those under its plugins/ folder), each with the coordinates a start's `plugins` entry or POST /api/plugins/install takes (source, ref, repo_path), whether a plugin of that name is installed, and — for a folder of the repository — its folder, skills, sub-agents and files. Empty when the server has no extensions repository (AGENTD_EXTENSIONS_REPO); 502 when it cannot be fetched and there is no earlier copy.",
        response: marketplaceResponses(MarketplacePluginsResponse),
      },
    },
    async () => {
      const market = await marketplaceOf(extensions);
      const installed = new Set(
        installedPlugins(home)
          .list()
          .map((p) => p.name),
      );
      return { plugins: market === null ? [] : marketplacePlugins(market, installed) };
    },
  );

  installationRoutes(app, {
    prefix: '/api/plugins',
    kind: 'Plugin',
    installations: installedPlugins(home),
    answer: (info) => {
      let contents: ReturnType<typeof pluginContents> | { skills: null; agents: null; files: null };
      try {
        contents = pluginContents(readPluginAt(info.install_path));
      } catch {
        contents = { skills: null, agents: null, files: null };
      }
      return { ...info, ...contents };
    },
    response: InstalledPluginResponse,
    about:
      'Installs a plugin (the Claude Code layout: its manifest names it) into ~/.openhands/plugins/installed/<name>. Every conversation gets the enabled installed plugins: their skills, commands, hooks and MCP servers.',
  });
};
