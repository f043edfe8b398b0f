// POST /api/sub-agents (OpenHands' sub_agents_router): the sub-agent types a conversation's task tool
// could hand work to — the project's and the user's definition files and agentd's built-ins
// (agent/sub-agents.ts). A read, like POST /api/skills: it reads the files with the server's own rights.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { type SubAgentsRequest, subAgentCatalog } from '../../agent/index.js';
import { errorResponses } from '../schemas.js';

export interface SubAgentRoutesOptions {
  /** The home folder the user's sub-agents are read from. */
  home: string;
}

export const subAgentRoutes: FastifyPluginAsync<SubAgentRoutesOptions> = async (app, { home }) => {
  app.post(
    '/api/sub-agents',
    {
      schema: {
        tags: ['Sub Agents'],
        summary: 'Get Sub Agents',
        description:
          "The sub-agents a workspace has: project_dir's `.agents/agents/*.md` then `.openhands/agents/*.md` (load_project), the user's `~/.agents/agents/*.md` then `~/.openhands/agents/*.md` (load_user), then agentd's built-ins (load_builtin: bash-runner, code-explorer, general-purpose, web-researcher); the first of a name wins. A file that does not parse is left out (and logged). Read only: nothing is registered.",
        body: Type.Ref('SubAgentsRequest'),
        response: { 200: Type.Ref('SubAgentsResponse'), ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body as SubAgentsRequest;
      return subAgentCatalog({
        home,
        projectDir: body.project_dir ?? null,
        loadUser: body.load_user ?? true,
        loadProject: body.load_project ?? true,
        loadBuiltin: body.load_builtin ?? true,
        warn: (line) => request.log.warn(line),
      });
    },
  );
};
