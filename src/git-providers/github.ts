// GitHub's REST API as OpenHands' app server reads it for its web UI (openhands/integrations/github):
// the user, their repositories a page at a time, repository search, branches, and the issues and pull
// requests waiting on them. Plain fetch with a timeout; the token is only ever a request header.
import type { GitBranch, GitRepository, GitUser, PaginatedBranches, SuggestedTask } from './schemas.js';

/** How long one GitHub request may take. */
const REQUEST_TIMEOUT_MS = 15_000;
/** Branch pages a branch search reads at most (100 branches each): GitHub's REST API has no branch search. */
const BRANCH_SEARCH_PAGES = 10;
/** Pull requests whose state a suggested-task listing reads (one request each). */
const SUGGESTED_PULLS = 10;
/** The most GitHub sends in one page: a page asked larger is read as this (OpenHands' web UI asks 500). */
const GITHUB_PAGE_MAX = 100;
const pageSize = (perPage: number) => String(Math.min(perPage, GITHUB_PAGE_MAX));

/** github.com's API. */
export const GITHUB_API_URL = 'https://api.github.com';

/**
 * GitHub's API for a token's host: the server's (`configured`, AGENTD_GITHUB_API_URL) whatever the
 * host, else github.com's, or GitHub Enterprise Server's `/api/v3` at the host.
 */
export function githubApiUrl(host: string | null | undefined, configured?: string): string {
  if (configured) return configured;
  const name = host?.trim().toLowerCase();
  return !name || name === 'github.com' ? GITHUB_API_URL : `https://${name}/api/v3`;
}

/** GitHub answered with an error; `status` is its HTTP status (0: it could not be reached). */
export class GitHubError extends Error {
  override name = 'GitHubError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

export class GitHubClient {
  constructor(
    private readonly token: string,
    private readonly apiUrl: string,
  ) {}

  async user(): Promise<GitUser> {
    const { body } = await this.get<Json>('/user');
    return {
      id: String(body.id),
      login: String(body.login),
      avatar_url: String(body.avatar_url ?? ''),
      company: (body.company as string | null) ?? null,
      name: (body.name as string | null) ?? null,
      email: (body.email as string | null) ?? null,
    };
  }

  /** One page of the user's repositories (or of an installation's), with the page's Link header on each. */
  async repositories(options: {
    page: number;
    perPage: number;
    sort: string;
    installationId?: string;
  }): Promise<GitRepository[]> {
    const paging = { page: String(options.page), per_page: pageSize(options.perPage) };
    if (options.installationId) {
      const path = `/user/installations/${encodeURIComponent(options.installationId)}/repositories`;
      const { body, link } = await this.get<{ repositories?: Json[] }>(path, paging);
      return (body.repositories ?? []).map((r) => repository(r, link));
    }
    const { body, link } = await this.list('/user/repos', { ...paging, sort: options.sort });
    return body.map((r) => repository(r, link));
  }

  /**
   * Repositories matching `query`, as OpenHands searches: a repository URL finds that public
   * repository; `owner/name` searches the owner's; a bare word the user's own and their organizations'.
   */
  async searchRepositories(options: {
    query: string;
    perPage: number;
    sort: string;
    order: string;
  }): Promise<GitRepository[]> {
    const params = { per_page: pageSize(options.perPage), sort: options.sort, order: options.order };
    const search = (q: string) => this.found('/search/repositories', { ...params, q });
    const query = options.query.trim();
    const url = /^https?:\/\/[^/]+\/([^/\s]+)\/([^/\s]+?)(?:\.git)?\/?$/.exec(query);
    if (url) return (await search(`in:name ${url[1]}/${url[2]} is:public`)).map((r) => repository(r));
    if (query.includes('/')) {
      const [owner, name] = query.split('/', 2);
      return (await search(`org:${owner} in:name ${name}`)).map((r) => repository(r));
    }
    const login = (await this.user()).login;
    const organizations = (await this.list('/user/orgs')).body.map((o) => String(o.login));
    const found = await Promise.all([
      search(`in:name ${query} user:${login}`),
      ...organizations.map((org) => search(`${query} org:${org}`)),
    ]);
    const seen = new Set<string>();
    return found
      .flat()
      .map((r) => repository(r))
      .filter((r) => !seen.has(r.id) && Boolean(seen.add(r.id)));
  }

  async branches(repositoryName: string, page: number, perPage: number): Promise<PaginatedBranches> {
    const size = pageSize(perPage);
    const { body, link } = await this.list(`/repos/${repoPath(repositoryName)}/branches`, {
      page: String(page),
      per_page: size,
    });
    return {
      branches: body.map(branch),
      has_next_page: /rel="next"/.test(link ?? ''),
      current_page: page,
      per_page: Number(size),
      total_count: null,
    };
  }

  /** Branches whose name holds `query` (case-insensitive), from the first pages of the repository's. */
  async searchBranches(repositoryName: string, query: string, perPage: number): Promise<GitBranch[]> {
    const wanted = query.toLowerCase();
    const found: GitBranch[] = [];
    for (let page = 1; page <= BRANCH_SEARCH_PAGES && found.length < perPage; page++) {
      const { branches, has_next_page } = await this.branches(repositoryName, page, 100);
      found.push(...branches.filter((b) => b.name.toLowerCase().includes(wanted)));
      if (!has_next_page) break;
    }
    return found.slice(0, perPage);
  }

  /** The GitHub App installations the token may see (none for a personal token that is not an app's). */
  async installations(): Promise<string[]> {
    try {
      const { body } = await this.get<{ installations?: Json[] }>('/user/installations');
      return (body.installations ?? []).map((i) => String(i.id));
    } catch (error) {
      if (error instanceof GitHubError && (error.status === 403 || error.status === 404)) return [];
      throw error;
    }
  }

  /**
   * What waits on the user: their open pull requests with a merge conflict or failing checks, and the
   * open issues assigned to them (OpenHands' task types).
   */
  async suggestedTasks(): Promise<SuggestedTask[]> {
    const login = (await this.user()).login;
    const search = (q: string) => this.found('/search/issues', { q, per_page: '30', sort: 'updated' });
    const [pulls, issues] = await Promise.all([
      search(`is:open is:pr author:${login} archived:false`),
      search(`is:open is:issue assignee:${login} archived:false`),
    ]);
    // Each pull request's state is a request or two of its own: asked for all at once. One that needs
    // nothing is no task (OpenHands' web UI has no label for it).
    const pullTasks = await Promise.all(
      pulls.slice(0, SUGGESTED_PULLS).map(async (item): Promise<SuggestedTask | null> => {
        const repo = repoOfIssue(item);
        const number = Number(item.number);
        const { body: pull } = await this.get<Json>(`/repos/${repoPath(repo)}/pulls/${number}`);
        const type =
          pull.mergeable_state === 'dirty'
            ? 'MERGE_CONFLICTS'
            : (await this.checksFailed(repo, String((pull.head as Json | undefined)?.sha ?? '')))
              ? 'FAILING_CHECKS'
              : null;
        if (!type) return null;
        return {
          git_provider: 'github',
          task_type: type,
          repo,
          issue_number: number,
          title: String(item.title),
        };
      }),
    );
    const tasks = pullTasks.filter((task): task is SuggestedTask => task !== null);
    for (const item of issues) {
      const task = { repo: repoOfIssue(item), issue_number: Number(item.number), title: String(item.title) };
      tasks.push({ git_provider: 'github', task_type: 'OPEN_ISSUE', ...task });
    }
    return tasks;
  }

  /** Whether the commit's checks failed: its commit statuses, or its check runs (GitHub Actions'). */
  private async checksFailed(repo: string, sha: string): Promise<boolean> {
    if (!/^[0-9a-f]{40}$/i.test(sha)) return false;
    const commit = `/repos/${repoPath(repo)}/commits/${sha}`;
    const [status, checks] = await Promise.all([
      this.get<{ state?: string }>(`${commit}/status`),
      this.get<{ check_runs?: Json[] }>(`${commit}/check-runs`, { per_page: '100' }),
    ]);
    const failedRun = (checks.body.check_runs ?? []).some((run) =>
      ['failure', 'timed_out', 'action_required'].includes(String(run.conclusion)),
    );
    return status.body.state === 'failure' || status.body.state === 'error' || failedRun;
  }

  /** Whether a pull request is still open (not closed, not merged). */
  async pullRequestOpen(repositoryName: string, number: number): Promise<boolean> {
    const { body } = await this.get<Json>(`/repos/${repoPath(repositoryName)}/pulls/${number}`);
    return body.state === 'open';
  }

  /** A folder's entries in the repository (GitHub's contents API); null where there is none. */
  async folder(repositoryName: string, path: string): Promise<{ name: string; type: string }[] | null> {
    const body = await this.contents(repositoryName, path);
    if (body === null || !Array.isArray(body)) return null; // nothing there, or a file
    return (body as Json[]).map((entry) => ({ name: String(entry.name), type: String(entry.type) }));
  }

  /**
   * A file's text in the repository; null where there is none. A folder, or a file GitHub does not
   * inline (over 1 MB), is a 400.
   */
  async file(repositoryName: string, path: string): Promise<string | null> {
    const body = await this.contents(repositoryName, path);
    if (body === null) return null;
    const file = body as Json;
    if (Array.isArray(body) || file.type !== 'file') throw new GitHubError(400, `Not a file: ${path}`);
    if (file.encoding !== 'base64' || typeof file.content !== 'string')
      throw new GitHubError(400, `GitHub does not send this file's text (larger than 1 MB?): ${path}`);
    return Buffer.from(file.content, 'base64').toString('utf8');
  }

  /** What the contents API answers for `path` (a folder's list or a file), null for its 404. */
  private async contents(repositoryName: string, path: string): Promise<unknown> {
    const segments = path.split('/');
    if (segments.some((p) => p === '' || p === '.' || p === '..'))
      throw new GitHubError(400, `Not a path in the repository: ${path.slice(0, 200)}`);
    const at = `/repos/${repoPath(repositoryName)}/contents/${segments.map(encodeURIComponent).join('/')}`;
    try {
      return (await this.get<unknown>(at)).body;
    } catch (error) {
      if (error instanceof GitHubError && error.status === 404) return null;
      throw error;
    }
  }

  /** A route that answers a list: anything else (a proxy's page, say) is GitHub failing. */
  private async list(path: string, params: Record<string, string> = {}) {
    const answer = await this.get<unknown>(path, params);
    if (!Array.isArray(answer.body)) throw new GitHubError(502, `GitHub answered ${path} with no list`);
    return { body: answer.body as Json[], link: answer.link };
  }

  /** What a search route found (its `items`), held to be a list as `list` does. */
  private async found(path: string, params: Record<string, string>): Promise<Json[]> {
    const { body } = await this.get<{ items?: unknown }>(path, params);
    if (!Array.isArray(body.items)) throw new GitHubError(502, `GitHub answered ${path} with no items`);
    return body.items as Json[];
  }

  private async get<T>(
    path: string,
    params: Record<string, string> = {},
  ): Promise<{ body: T; link: string | null }> {
    const url = new URL(`${this.apiUrl.replace(/\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${this.token}`,
          'User-Agent': 'agentd',
          'X-GitHub-Api-Version': '2022-11-28',
        },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new GitHubError(0, `GitHub could not be reached (${url.host}): ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 200);
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? message);
      } catch {}
      throw new GitHubError(response.status, `GitHub answered ${response.status}: ${message}`);
    }
    try {
      return { body: JSON.parse(text) as T, link: response.headers.get('link') };
    } catch {
      throw new GitHubError(502, `GitHub answered ${path} with something that is not JSON`);
    }
  }
}

/** `owner/name` as a URL path, each part encoded (a name cannot climb out of /repos/). */
function repoPath(full: string): string {
  const parts = full.split('/');
  if (parts.length !== 2 || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new GitHubError(400, `Not a repository name (owner/name): ${full.slice(0, 200)}`);
  return parts.map(encodeURIComponent).join('/');
}

function repoOfIssue(item: Json): string {
  // https://api.github.com/repos/{owner}/{name}
  return String(item.repository_url ?? '')
    .split('/')
    .slice(-2)
    .join('/');
}

function repository(r: Json, link: string | null = null): GitRepository {
  const owner = r.owner as Json | undefined;
  return {
    id: String(r.id),
    full_name: String(r.full_name),
    git_provider: 'github',
    is_public: r.private === false,
    stargazers_count: typeof r.stargazers_count === 'number' ? r.stargazers_count : null,
    link_header: link,
    pushed_at: typeof r.pushed_at === 'string' ? r.pushed_at : null,
    owner_type: owner?.type === 'Organization' ? 'organization' : 'user',
    main_branch: typeof r.default_branch === 'string' ? r.default_branch : null,
  };
}

function branch(b: Json): GitBranch {
  return {
    name: String(b.name),
    commit_sha: String((b.commit as Json | undefined)?.sha ?? ''),
    protected: b.protected === true,
    last_push_date: null,
  };
}
