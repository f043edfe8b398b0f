// OpenHands' git-provider routes, which its web UI's Integrations page and repository picker call: the
// user's GitHub token (POST /api/add-git-providers, /api/unset-provider-tokens) and what GitHub shows
// them through it (/api/user/*: who they are, their repositories and branches, search, the issues and
// pull requests waiting on them, a repository's microagents). On the control plane only, as in OpenHands' app server. GitHub's
// refusals are 400 (404 for what it does not find), GitHub out of reach is a 502.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  GitBranch,
  GitProviderError,
  type GitProviders,
  GitRepository,
  GitUser,
  MicroagentContent,
  microagentContent,
  PaginatedBranches,
  ProviderTokensRequest,
  RepositoryMicroagent,
  repositoryMicroagents,
  SuggestedTask,
} from '../../git-providers/index.js';
import { detailResponse, errorResponses } from '../schemas.js';

const Provider = Type.Optional(
  Type.String({ maxLength: 32, description: 'github (the one agentd connects to)' }),
);
/** What a GitHub owner or repository name is made of (`.` and `..` are refused by the client, repoPath). */
const NAME = '[A-Za-z0-9_.-]+';
const RepositoryName = Type.String({
  pattern: `^${NAME}/${NAME}$`,
  maxLength: 200,
  description: 'owner/name',
});
/** A repository as two path segments (owner, then name), as the microagent routes take it. */
const RepositoryParams = Type.Object({
  owner: Type.String({ pattern: `^${NAME}$`, maxLength: 100 }),
  repo: Type.String({ pattern: `^${NAME}$`, maxLength: 100 }),
});
const Page = Type.Integer({ minimum: 1, maximum: 10_000, default: 1 });
// OpenHands' web UI asks for up to 500 (its microagent page's repository search); GitHub sends at most
// 100 a page, and more is read as 100, as GitHub itself does.
const PerPage = (fallback: number) =>
  Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: fallback,
    description: 'GitHub sends at most 100 a page: more is read as 100',
  });
const Query = Type.String({ minLength: 1, maxLength: 256 });

const Message = Type.Object({ message: Type.String() });
const failures = {
  400: detailResponse(
    'No GitHub token is stored, GitHub refused the request, or another provider was asked for',
  ),
  404: detailResponse('GitHub does not find it (or does not show it to this token)'),
  502: detailResponse('GitHub could not be reached, or failed'),
};

export const gitProviderRoutes: FastifyPluginAsync<{ providers: GitProviders }> = async (
  app,
  { providers },
) => {
  // OpenHands' web UI shows this route's refusal from an `error` member (its server's shape): it comes
  // beside agentd's `detail` (a body refused before the route, a bad JSON one say, has `detail` alone).
  const refusal = (description: string) => ({
    description,
    content: {
      'application/json': {
        schema: Type.Object({ detail: Type.String(), error: Type.Optional(Type.String()) }),
      },
    },
  });
  app.post(
    '/api/add-git-providers',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Store Provider Tokens',
        description:
          "Stores the caller's GitHub token (sealed) after GitHub accepted it; an empty token keeps the stored one, a provider left out is forgotten. GitHub only: a token for another provider is a 400. A refusal's reason is in `detail` and, for OpenHands' web UI, in `error`.",
        body: ProviderTokensRequest,
        response: {
          200: Message,
          400: refusal('GitHub refused the token, or it is for another provider'),
          502: refusal('GitHub could not be reached, or failed'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      try {
        await providers.store(request.userId, request.body as ProviderTokensRequest);
      } catch (error) {
        if (!(error instanceof GitProviderError)) throw error;
        return reply.code(error.status).send({ detail: error.message, error: error.message });
      }
      return { message: 'Git providers stored' };
    },
  );

  app.post(
    '/api/unset-provider-tokens',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Unset Provider Tokens',
        description: "Forgets the caller's git provider tokens.",
        response: { 200: Message, ...errorResponses },
      },
    },
    async (request) => {
      await providers.unset(request.userId);
      return { message: 'Unset Git provider tokens' };
    },
  );

  app.get(
    '/api/user/info',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get Git User',
        description: 'Who the stored GitHub token belongs to.',
        response: { 200: GitUser, ...failures, ...errorResponses },
      },
    },
    (request) => providers.withClient(request.userId, 'github', (github) => github.user()),
  );

  app.get(
    '/api/user/repositories',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get User Repositories',
        description:
          "One page of the caller's GitHub repositories (or of an installation's); each carries the page's Link header (`link_header`), which tells whether another page follows.",
        querystring: Type.Object({
          sort: Type.Union(
            ['pushed', 'updated', 'created', 'full_name'].map((s) => Type.Literal(s)),
            {
              default: 'pushed',
            },
          ),
          selected_provider: Provider,
          page: Page,
          per_page: PerPage(30),
          installation_id: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$' })),
        }),
        response: { 200: Type.Array(GitRepository), ...failures, ...errorResponses },
      },
    },
    (request) => {
      const q = request.query as {
        sort: string;
        selected_provider?: string;
        page: number;
        per_page: number;
        installation_id?: string;
      };
      return providers.withClient(request.userId, q.selected_provider, (github) =>
        github.repositories({
          page: q.page,
          perPage: q.per_page,
          sort: q.sort,
          ...(q.installation_id ? { installationId: q.installation_id } : {}),
        }),
      );
    },
  );

  app.get(
    '/api/user/search/repositories',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Search Repositories',
        description:
          "GitHub repositories matching `query`: a repository URL finds that public repository, `owner/name` searches the owner's, a word the caller's own and their organizations'.",
        querystring: Type.Object({
          query: Query,
          per_page: PerPage(5),
          sort: Type.Union(
            ['stars', 'forks', 'help-wanted-issues', 'updated'].map((s) => Type.Literal(s)),
            {
              default: 'stars',
            },
          ),
          order: Type.Union([Type.Literal('desc'), Type.Literal('asc')], { default: 'desc' }),
          selected_provider: Provider,
        }),
        response: { 200: Type.Array(GitRepository), ...failures, ...errorResponses },
      },
    },
    (request) => {
      const q = request.query as {
        query: string;
        per_page: number;
        sort: string;
        order: string;
        selected_provider?: string;
      };
      return providers.withClient(request.userId, q.selected_provider, (github) =>
        github.searchRepositories({ query: q.query, perPage: q.per_page, sort: q.sort, order: q.order }),
      );
    },
  );

  app.get(
    '/api/user/repository/branches',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get Repository Branches',
        querystring: Type.Object({ repository: RepositoryName, page: Page, per_page: PerPage(30) }),
        response: { 200: PaginatedBranches, ...failures, ...errorResponses },
      },
    },
    (request) => {
      const q = request.query as { repository: string; page: number; per_page: number };
      return providers.withClient(request.userId, 'github', (github) =>
        github.branches(q.repository, q.page, q.per_page),
      );
    },
  );

  app.get(
    '/api/user/search/branches',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Search Branches',
        description:
          'Branches of the repository whose name holds `query` (its first 1,000 branches are looked at).',
        querystring: Type.Object({
          repository: RepositoryName,
          query: Query,
          per_page: PerPage(30),
          selected_provider: Provider,
        }),
        response: { 200: Type.Array(GitBranch), ...failures, ...errorResponses },
      },
    },
    (request) => {
      const q = request.query as {
        repository: string;
        query: string;
        per_page: number;
        selected_provider?: string;
      };
      return providers.withClient(request.userId, q.selected_provider, (github) =>
        github.searchBranches(q.repository, q.query, q.per_page),
      );
    },
  );

  app.get(
    '/api/user/installations',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get User Installations',
        description: 'The GitHub App installations the token sees (none for a personal token).',
        querystring: Type.Object({ provider: Type.String({ maxLength: 32 }) }),
        response: { 200: Type.Array(Type.String()), ...failures, ...errorResponses },
      },
    },
    (request) => {
      const { provider } = request.query as { provider: string };
      return providers.withClient(request.userId, provider, (github) => github.installations());
    },
  );

  app.get(
    '/api/user/suggested-tasks',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get Suggested Tasks',
        description:
          "The caller's open pull requests with a merge conflict (MERGE_CONFLICTS) or failing checks (FAILING_CHECKS), and the open issues assigned to them (OPEN_ISSUE).",
        response: { 200: Type.Array(SuggestedTask), ...failures, ...errorResponses },
      },
    },
    (request) => providers.withClient(request.userId, 'github', (github) => github.suggestedTasks()),
  );

  app.get(
    '/api/user/repository/:owner/:repo/microagents',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get Repository Microagents',
        description:
          "The repository's microagents, without their text: its `.cursorrules` and the markdown files of `.openhands/microagents` (`microagents` in a repository named `.openhands` or `openhands-config`). None where it has neither.",
        params: RepositoryParams,
        response: { 200: Type.Array(RepositoryMicroagent), ...failures, ...errorResponses },
      },
    },
    (request) => {
      const { owner, repo } = request.params as { owner: string; repo: string };
      return providers.withClient(request.userId, 'github', (github) =>
        repositoryMicroagents(github, `${owner}/${repo}`),
      );
    },
  );

  app.get(
    '/api/user/repository/:owner/:repo/microagents/content',
    {
      schema: {
        tags: ['Git providers'],
        summary: 'Get Repository Microagent Content',
        description:
          'One file of the repository as a microagent: its text after the front matter and its triggers.',
        params: RepositoryParams,
        querystring: Type.Object({
          file_path: Type.String({
            minLength: 1,
            maxLength: 1024,
            description: 'The file in the repository, e.g. .openhands/microagents/deploy.md',
          }),
        }),
        response: { 200: MicroagentContent, ...failures, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, repo } = request.params as { owner: string; repo: string };
      const { file_path } = request.query as { file_path: string };
      const found = await providers.withClient(request.userId, 'github', (github) =>
        microagentContent(github, `${owner}/${repo}`, file_path),
      );
      return found ?? reply.code(404).send({ detail: `No file ${file_path} in ${owner}/${repo}` });
    },
  );
};
