// A user's git provider tokens (kept sealed in their settings, secrets_store.provider_tokens) and the
// GitHub client each one opens. GitHub only, github.com or a GitHub Enterprise Server host: a GitLab or
// Bitbucket token is refused rather than kept, since nothing here could list its repositories.
import type { SettingsService } from '../settings/index.js';
import { GitHubClient, GitHubError, githubApiUrl } from './github.js';
import type { ProviderTokensRequest } from './schemas.js';

/** Why a git provider request cannot be served: an HTTP status and the reason. */
export class GitProviderError extends Error {
  override name = 'GitProviderError';
  constructor(
    readonly status: 400 | 404 | 502,
    message: string,
  ) {
    super(message);
  }
}

/** A GitHub error as this server answers it (GitHub's own refusals are the caller's to fix); others as they are. */
export function providerFailure(error: unknown): unknown {
  if (!(error instanceof GitHubError)) return error;
  if (error.status === 401)
    return new GitProviderError(400, 'GitHub refused the stored token: connect GitHub again in the settings');
  if (error.status === 404) return new GitProviderError(404, error.message);
  if (error.status === 0 || error.status >= 500) return new GitProviderError(502, error.message);
  return new GitProviderError(400, error.message);
}

/** Whether a pull request of a repository (on a provider) is still open. */
export type PullRequestCheck = (provider: string | null, repo: string, number: number) => Promise<boolean>;

export class GitProviders {
  /** `apiUrl`: the GitHub API every token goes to (AGENTD_GITHUB_API_URL); default by its host. */
  constructor(
    private readonly settings: SettingsService,
    private readonly apiUrl?: string,
  ) {}

  /**
   * Stores the tokens of OpenHands' POST /api/add-git-providers after GitHub accepted the new one (or
   * the stored one at a new host). Empty entries for other providers (its web UI sends all three) are
   * passed over; a token for one is a 400.
   */
  async store(userId: string, request: ProviderTokensRequest): Promise<void> {
    const tokens = request.provider_tokens ?? {};
    for (const [provider, given] of Object.entries(tokens)) {
      if (provider !== 'github' && given?.token?.trim())
        throw new GitProviderError(400, `agentd connects to GitHub only, not to ${provider}`);
    }
    const github = tokens.github;
    if (github) {
      const stored = (await this.settings.getEffective(userId))?.secrets_store?.provider_tokens?.github;
      const token = github.token?.trim() || stored?.token;
      const hostChanged = (github.host?.trim() || null) !== (stored?.host || null);
      if (token && (github.token?.trim() || hostChanged)) {
        await new GitHubClient(token, githubApiUrl(github.host, this.apiUrl)).user().catch((error) => {
          const failure = providerFailure(error);
          // Out of reach stays a 502; any answer but the user's is the token's fault (a 404 included).
          if (!(failure instanceof GitProviderError) || failure.status === 502) throw failure;
          throw new GitProviderError(400, 'Invalid token. Please make sure it is a valid github token.');
        });
      }
    }
    await this.settings.setProviderTokens(
      userId,
      github ? { github: { ...github, token: github.token?.trim() } } : {},
    );
  }

  /** Forgets every provider token (OpenHands' POST /api/unset-provider-tokens). */
  unset(userId: string): Promise<void> {
    return this.settings.setProviderTokens(userId, {});
  }

  /** The client of the user's GitHub token; a 400 when they have none (or ask for another provider). */
  async client(userId: string, provider?: string | null): Promise<GitHubClient> {
    if (provider && provider !== 'github')
      throw new GitProviderError(400, `agentd connects to GitHub only, not to ${provider}`);
    const github = (await this.settings.getEffective(userId))?.secrets_store?.provider_tokens?.github;
    if (!github?.token)
      throw new GitProviderError(400, 'Git provider token required: connect GitHub in the settings first');
    return new GitHubClient(github.token, githubApiUrl(github.host, this.apiUrl));
  }

  /**
   * For one listing, whether the user's pull requests are still open: the client made once, each
   * pull request asked once; true where that cannot be told (no token, another provider, GitHub
   * failing), so that nothing is hidden for want of an answer (as OpenHands does).
   */
  pullRequestChecks(userId: string): PullRequestCheck {
    let client: Promise<GitHubClient | null> | undefined;
    const asked = new Map<string, Promise<boolean>>();
    return (provider, repo, number) => {
      if (provider !== 'github') return Promise.resolve(true);
      const key = `${repo}#${number}`;
      let open = asked.get(key);
      if (!open) {
        client ??= this.client(userId, provider).catch(() => null);
        open = client.then((c) => c?.pullRequestOpen(repo, number) ?? true).catch(() => true);
        asked.set(key, open);
      }
      return open;
    };
  }

  /** Runs `work` with the user's GitHub client, GitHub's failures answered as this server's. */
  async withClient<T>(
    userId: string,
    provider: string | null | undefined,
    work: (client: GitHubClient) => Promise<T>,
  ): Promise<T> {
    const client = await this.client(userId, provider);
    try {
      return await work(client);
    } catch (error) {
      throw providerFailure(error);
    }
  }
}
