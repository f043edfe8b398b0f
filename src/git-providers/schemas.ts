// The wire shapes of OpenHands' git-provider routes (/api/user/*, /api/add-git-providers), from its
// app server's models (openhands/integrations/service_types.py), which its web UI reads.
import { type Static, Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const GIT_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'enterprise_sso'] as const;
export type GitProviderName = (typeof GIT_PROVIDERS)[number];

export const GitRepository = Type.Object(
  {
    id: Type.String(),
    full_name: Type.String(),
    git_provider: Type.Literal('github'),
    is_public: Type.Boolean(),
    stargazers_count: Nullable(Type.Integer()),
    /** The page's Link header, on each repository of a page (the UI reads the first one's). */
    link_header: Nullable(Type.String()),
    pushed_at: Nullable(Type.String()),
    owner_type: Nullable(Type.Union([Type.Literal('user'), Type.Literal('organization')])),
    main_branch: Nullable(Type.String()),
  },
  { title: 'Repository' },
);
export type GitRepository = Static<typeof GitRepository>;

export const GitBranch = Type.Object(
  {
    name: Type.String(),
    commit_sha: Type.String(),
    protected: Type.Boolean(),
    last_push_date: Nullable(Type.String()),
  },
  { title: 'Branch' },
);
export type GitBranch = Static<typeof GitBranch>;

export const PaginatedBranches = Type.Object(
  {
    branches: Type.Array(GitBranch),
    has_next_page: Type.Boolean(),
    current_page: Type.Integer(),
    per_page: Type.Integer(),
    total_count: Nullable(Type.Integer()),
  },
  { title: 'PaginatedBranchesResponse' },
);
export type PaginatedBranches = Static<typeof PaginatedBranches>;

export const GitUser = Type.Object(
  {
    id: Type.String(),
    login: Type.String(),
    avatar_url: Type.String(),
    company: Nullable(Type.String()),
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
  },
  { title: 'User' },
);
export type GitUser = Static<typeof GitUser>;

export const SuggestedTask = Type.Object(
  {
    git_provider: Type.Literal('github'),
    task_type: Type.Union([
      Type.Literal('MERGE_CONFLICTS'),
      Type.Literal('FAILING_CHECKS'),
      Type.Literal('OPEN_ISSUE'),
    ]),
    repo: Type.String(),
    issue_number: Type.Integer(),
    title: Type.String(),
  },
  { title: 'SuggestedTask' },
);
export type SuggestedTask = Static<typeof SuggestedTask>;

const ProviderTokenInput = Type.Object({
  /** Visible ASCII, as every GitHub token is (it travels in a header). */
  token: Type.Optional(Nullable(Type.String({ maxLength: 4096, pattern: '^[\\x21-\\x7E]*$' }))),
  /** GitHub Enterprise's host name (and port); empty or absent: github.com. */
  host: Type.Optional(
    Nullable(Type.String({ maxLength: 253, pattern: '^([A-Za-z0-9.-]+(:[0-9]{1,5})?)?$' })),
  ),
  user_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
});

/** POST /api/add-git-providers (OpenHands' POSTProviderModel; its mcp_config is not read). */
export const ProviderTokensRequest = Type.Object(
  {
    provider_tokens: Type.Optional(
      Type.Partial(Type.Object(Object.fromEntries(GIT_PROVIDERS.map((p) => [p, ProviderTokenInput])))),
    ),
    mcp_config: Type.Optional(Type.Unknown()),
  },
  { title: 'POSTProviderModel' },
);
export type ProviderTokensRequest = {
  provider_tokens?: Partial<
    Record<GitProviderName, { token?: string | null; host?: string | null; user_id?: string | null }>
  >;
};

/** A microagent file of a repository (OpenHands' MicroagentResponse, with the provider its UI reads). */
export const RepositoryMicroagent = Type.Object(
  {
    name: Type.String(),
    path: Type.String(),
    /** When it was listed: GitHub's contents API dates nothing (OpenHands answers the same). */
    created_at: Type.String({ format: 'date-time' }),
    git_provider: Type.Literal('github'),
  },
  { title: 'MicroagentResponse' },
);
export type RepositoryMicroagent = Static<typeof RepositoryMicroagent>;

export const MicroagentContent = Type.Object(
  {
    /** The file's text after its front matter. */
    content: Type.String(),
    path: Type.String(),
    /** The keywords that bring it into a conversation (its front matter's `triggers`); none for a repository one. */
    triggers: Type.Array(Type.String()),
    git_provider: Nullable(Type.String()),
  },
  { title: 'MicroagentContentResponse' },
);
export type MicroagentContent = Static<typeof MicroagentContent>;
