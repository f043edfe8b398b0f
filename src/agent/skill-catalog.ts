// The skills this server can see, for OpenHands' POST /api/skills (the SDK's
// `load_skills_from_agent_server` puts them in the AgentContext of the conversations it starts).
// Sources, lowest precedence first, with OpenHands' names in `sources`:
// - `sdk_base`: the public skills (the extensions repository's: marketplace.ts' publicSkills), then
//   the user's (~/.agents/skills, ~/.openhands/skills, ~/.openhands/microagents, then the enabled
//   installed ones: skill-install.ts);
// - `project`: the workspace's (AGENTS.md and friends, .openhands/skills, .agents/skills);
// - `sandbox` (lowest): the always-on `work_hosts` skill listing the request's exposed URLs named
//   WORKER_* (OpenHands' sandbox skill);
// - `registered_marketplaces`, `org`: always 0 here: agentd loads no skills from marketplaces or
//   organization repositories.
// A later source's skill replaces an earlier one of the same name (OpenHands' merge).
import { userSkills } from './skill-install.js';
import { type Skill, workspaceSkills } from './skills.js';

/** OpenHands' SkillInfo. */
export interface SkillInfo {
  name: string;
  type: 'repo' | 'knowledge' | 'agentskills';
  content: string;
  triggers: string[];
  source: string | null;
  description: string | null;
  is_agentskills_format: boolean;
  disable_model_invocation: boolean;
}

export interface SkillCatalogRequest {
  /** The public skills asked for (OpenHands' load_public), read by the caller; below the user's. */
  publicSkills: readonly Skill[];
  /** The user's home, where the user skills live. */
  home: string;
  loadUser: boolean;
  loadProject: boolean;
  /** The workspace whose skills to read; null: none. */
  projectDir: string | null;
  /** The sandbox's exposed URLs (OpenHands' sandbox_config.exposed_urls). */
  exposedUrls?: readonly { name: string; url: string; port: number }[];
}

/** OpenHands' names: only exposed URLs with this prefix are web applications the agent should know. */
const WORKER_PREFIX = 'WORKER_';

export function skillCatalog(request: SkillCatalogRequest): {
  skills: SkillInfo[];
  sources: Record<string, number>;
} {
  const user = request.loadUser ? userSkills(request.home) : [];
  const project =
    request.loadProject && request.projectDir !== null ? workspaceSkills(request.projectDir) : [];
  const sandbox = workHosts(request.exposedUrls ?? []);
  const byName = new Map<string, SkillInfo>();
  for (const skill of [...sandbox, ...request.publicSkills, ...user, ...project])
    byName.set(skill.name, skillInfo(skill));
  return {
    skills: [...byName.values()],
    sources: {
      sandbox: sandbox.length,
      registered_marketplaces: 0,
      sdk_base: request.publicSkills.length + user.length,
      org: 0,
      project: project.length,
    },
  };
}

function workHosts(urls: readonly { name: string; url: string; port: number }[]): Skill[] {
  const hosts = urls
    .filter((u) => u.name.startsWith(WORKER_PREFIX))
    .map((u) => `* ${u.url} (port ${u.port})`);
  if (hosts.length === 0) return [];
  const content = `The user has access to the following hosts for accessing a web application, each of which has a corresponding port:\n${hosts.join('\n')}`;
  return [{ name: 'work_hosts', content, keywords: null }];
}

function skillInfo(skill: Skill): SkillInfo {
  return {
    name: skill.name,
    type: skill.agentSkills ? 'agentskills' : skill.keywords === null ? 'repo' : 'knowledge',
    content: skill.content,
    triggers: skill.keywords ?? [],
    source: skill.source ?? null,
    description: skill.description ?? null,
    is_agentskills_format: skill.agentSkills ?? false,
    disable_model_invocation: false,
  };
}
