export { GitHubClient, GitHubError, githubApiUrl } from './github.js';
export { microagentContent, microagentsFolder, repositoryMicroagents } from './microagents.js';
export * from './schemas.js';
export { GitProviderError, GitProviders, type PullRequestCheck } from './service.js';
