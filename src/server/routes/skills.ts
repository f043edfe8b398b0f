// POST /api/skills: the skills this server can see (OpenHands' shape; see agent/skill-catalog.ts for
// the sources), and the installed skills (agent/skill-install.ts): install, list, enable or disable,
// uninstall, refresh. They read and write skill files with the server's own rights, like the file routes.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  InstalledSkillResponse,
  InstalledSkills,
  type InstallRequest,
  InstallSkillRequest,
  InvalidExtensionError,
  MAX_EXTENSION_BYTES,
  MAX_EXTENSION_FILES,
  SkillExistsError,
  SkillNameParams,
  SourceFetchError,
  skillCatalog,
} from '../../agent/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

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
  const installed = new InstalledSkills(home);
  const installedTags = ['Skills'];
  const notInstalled = (name: string) => new HttpError(404, `Skill '${name}' is not installed`);
  const skillName = (request: { params: unknown }) => (request.params as { skill_name: string }).skill_name;
  const InstalledList = Type.Object({ skills: Type.Array(InstalledSkillResponse) });
  const notFound = { 404: detailResponse('The skill is not installed') };

  app.post(
    '/api/skills/install',
    {
      schema: {
        tags: installedTags,
        summary: 'Install Skill',
        description: `Installs the AgentSkills folder (its SKILL.md and what it refers to) at \`source\` — github:owner/repo, a git URL (cloned with the server's git), or a folder on this server — into ~/.openhands/skills/installed/<name>, named by its SKILL.md. Enabled installed skills are user skills (POST /api/skills, agent profiles) after the user's own skill files. 400 the source cannot be fetched, 409 installed already (force=true replaces it, keeping whether it is enabled), 422 no valid SKILL.md or over ${MAX_EXTENSION_FILES} files / ${MAX_EXTENSION_BYTES / 1024 / 1024} MB.`,
        body: InstallSkillRequest,
        response: {
          200: InstalledSkillResponse,
          400: detailResponse('The source cannot be fetched'),
          409: detailResponse('Installed already (force=true replaces it)'),
          ...errorResponses,
        },
      },
    },
    async (request) => installed.install(request.body as InstallRequest).catch(installError),
  );

  app.get(
    '/api/skills/installed',
    {
      schema: {
        tags: installedTags,
        summary: 'List Installed Skills',
        response: { 200: InstalledList, ...errorResponses },
      },
    },
    async () => ({ skills: installed.list() }),
  );

  app.get(
    '/api/skills/installed/:skill_name',
    {
      schema: {
        tags: installedTags,
        summary: 'Get Installed Skill',
        params: SkillNameParams,
        response: { 200: InstalledSkillResponse, ...notFound, ...errorResponses },
      },
    },
    async (request) => installed.get(skillName(request)) ?? Promise.reject(notInstalled(skillName(request))),
  );

  app.patch(
    '/api/skills/installed/:skill_name',
    {
      schema: {
        tags: installedTags,
        summary: 'Enable or Disable Installed Skill',
        description: 'A disabled skill stays installed but is no user skill until enabled again.',
        params: SkillNameParams,
        body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
          ...notFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { enabled } = request.body as { enabled: boolean };
      const name = skillName(request);
      if (!(await installed.setEnabled(name, enabled))) throw notInstalled(name);
      return { name, enabled };
    },
  );

  app.delete(
    '/api/skills/installed/:skill_name',
    {
      schema: {
        tags: installedTags,
        summary: 'Uninstall Skill',
        params: SkillNameParams,
        response: { 200: Type.Object({ message: Type.String() }), ...notFound, ...errorResponses },
      },
    },
    async (request) => {
      const name = skillName(request);
      if (!(await installed.uninstall(name))) throw notInstalled(name);
      return { message: `Skill '${name}' uninstalled` };
    },
  );

  app.post(
    '/api/skills/installed/:skill_name/refresh',
    {
      schema: {
        tags: installedTags,
        summary: 'Refresh Installed Skill',
        description:
          'Fetches the skill again from its source (at the ref it was installed with) and replaces the installation.',
        params: SkillNameParams,
        response: {
          200: Type.Object({ message: Type.String(), skill: InstalledSkillResponse }),
          400: detailResponse('The source cannot be fetched'),
          ...notFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const name = skillName(request);
      const skill = await installed.refresh(name).catch(installError);
      if (!skill) throw notInstalled(name);
      return { message: `Skill '${name}' updated`, skill };
    },
  );
};

/** An installation's failure as OpenHands answers it: 400 fetch, 409 installed, 422 not a skill. */
function installError(error: unknown): never {
  if (error instanceof SourceFetchError) throw new HttpError(400, error.message);
  if (error instanceof SkillExistsError) throw new HttpError(409, error.message);
  if (error instanceof InvalidExtensionError) throw new HttpError(422, error.message);
  throw error;
}
