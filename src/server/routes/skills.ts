// POST /api/skills: the skills this server can see (OpenHands' shape; see agent/skill-catalog.ts for
// the sources), and the installed skills (agent/skill-install.ts; the routes are installations.ts'):
// install, list, enable or disable, uninstall, refresh. They read and write skill files with the server's own rights, like the file routes.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { InstalledSkillResponse, installedSkills, skillCatalog } from '../../agent/index.js';
import { errorResponses } from '../schemas.js';
import { installationRoutes } from './installations.js';

export interface SkillRoutesOptions {
  /** The home folder the user skills are read from. */
  home: string;
}

interface SkillsBody {
  load_user?: boolean;
  load_project?: boolean;
  project_dir?: string | null;
  sandbox_config?: { exposed_urls?: { name: string; url: string; port: number }[] } | null;
}

export const skillRoutes: FastifyPluginAsync<SkillRoutesOptions> = async (app, { home }) => {
  app.post(
    '/api/skills',
    {
      schema: {
        tags: ['Skills'],
        summary: 'Get Skills',
        description:
          "Skills from sandbox_config's WORKER_* exposed URLs (the work_hosts skill, sources.sandbox), the user's folders (sources.sdk_base) and the project_dir workspace (sources.project); a later source's skill replaces an earlier one of the same name. agentd has no public, organization or marketplace skills: load_public, load_org, org_configs and registered_marketplaces are accepted and give none.",
        body: Type.Ref('SkillsRequest'),
        response: { 200: Type.Ref('SkillsResponse'), ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body as SkillsBody;
      return skillCatalog({
        home,
        loadUser: body.load_user ?? true,
        loadProject: body.load_project ?? true,
        projectDir: body.project_dir ?? null,
        exposedUrls: body.sandbox_config?.exposed_urls ?? [],
      });
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
