// POST /api/skills: the skills this server can see (OpenHands' shape; see agent/skill-catalog.ts for
// the sources), the installed skills (agent/skill-install.ts; the routes are installations.ts'):
// install, list, enable or disable, uninstall, refresh; and the public extensions repository's
// (agent/extensions-repository.ts): its marketplace catalog and a fetch on demand (sync). They read and write skill files with the server's own rights, like the file routes.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  type ExtensionsRepository,
  InstalledSkillResponse,
  installedSkills,
  MarketplaceSkillsResponse,
  marketplaceSkills,
  SyncResponse,
  skillCatalog,
} from '../../agent/index.js';
import { errorResponses } from '../schemas.js';
import { installationRoutes } from './installations.js';
import { marketplaceOf, marketplaceResponses } from './marketplace.js';

export interface SkillRoutesOptions {
  /** The home folder the user skills are read from. */
  home: string;
  /** The public extensions repository; null: none (no public skills, an empty marketplace). */
  extensions: ExtensionsRepository | null;
}

interface SkillsBody {
  load_public?: boolean;
  marketplace_path?: string | null;
  load_user?: boolean;
  load_project?: boolean;
  project_dir?: string | null;
  sandbox_config?: { exposed_urls?: { name: string; url: string; port: number }[] } | null;
}

export const skillRoutes: FastifyPluginAsync<SkillRoutesOptions> = async (app, { home, extensions }) => {
  app.post(
    '/api/skills',
    {
      schema: {
        tags: ['Skills'],
        summary: 'Get Skills',
        description:
          "Skills from sandbox_config's WORKER_* exposed URLs (the work_hosts skill, sources.sandbox), the public extensions repository's (load_public: those its marketplace_path file lists, every one when that is the default file and the repository has none) and the user's folders (both sources.sdk_base), and the project_dir workspace (sources.project); a later source's skill replaces an earlier one of the same name. The public repository is fetched when its copy is over five minutes old; when it cannot be had, there are no public skills. agentd has no organization or registered-marketplace skills: load_org, org_configs and registered_marketplaces are accepted and give none.",
        body: Type.Ref('SkillsRequest'),
        response: { 200: Type.Ref('SkillsResponse'), ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body as SkillsBody;
      return skillCatalog({
        publicSkills:
          body.load_public === false || extensions === null
            ? []
            : await extensions.publicSkills(body.marketplace_path),
        home,
        loadUser: body.load_user ?? true,
        loadProject: body.load_project ?? true,
        projectDir: body.project_dir ?? null,
        exposedUrls: body.sandbox_config?.exposed_urls ?? [],
      });
    },
  );
  app.get(
    '/api/skills/marketplace',
    {
      schema: {
        tags: ['Skills'],
        summary: 'Get Marketplace Catalog',
        description:
          "The skills the public extensions repository's marketplace lists (not its plugins: GET /api/plugins/marketplace), each with the source POST /api/skills/install takes and whether a skill of that name is installed. Empty when the server has no extensions repository (AGENTD_EXTENSIONS_REPO); 502 when it cannot be fetched and there is no earlier copy.",
        response: marketplaceResponses(MarketplaceSkillsResponse),
      },
    },
    async () => {
      const market = await marketplaceOf(extensions);
      const installed = new Set(
        installedSkills(home)
          .list()
          .map((s) => s.name),
      );
      return { skills: market === null ? [] : marketplaceSkills(market, installed) };
    },
  );

  app.post(
    '/api/skills/sync',
    {
      schema: {
        tags: ['Skills'],
        summary: 'Sync Skills',
        description:
          "Fetches the public extensions repository now (its branch's latest commit), for the public skills and both marketplaces. OpenHands' answer: status `error` with the reason when it cannot be fetched or the server has none.",
        response: { 200: SyncResponse, ...errorResponses },
      },
    },
    async () => {
      if (extensions === null)
        return {
          status: 'error',
          message: 'This server has no extensions repository (AGENTD_EXTENSIONS_REPO)',
        };
      try {
        await extensions.sync();
        return { status: 'success', message: 'Skills repository synced successfully' };
      } catch (error) {
        return { status: 'error', message: (error as Error).message };
      }
    },
  );

  installationRoutes(app, {
    prefix: '/api/skills',
    kind: 'Skill',
    installations: installedSkills(home),
    answer: (info) => info,
    response: InstalledSkillResponse,
    about:
      "Installs an AgentSkills folder (its SKILL.md and what it refers to), named by its SKILL.md, into ~/.openhands/skills/installed/<name>. Enabled installed skills are user skills (POST /api/skills, agent profiles) after the user's own skill files.",
  });
};
