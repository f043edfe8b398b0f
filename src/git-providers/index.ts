export { GitHubClient, GitHubError, githubApiUrl } from './github.js';
export * from './schemas.js';
export { GitProviderError, GitProviders } from './service.js';
