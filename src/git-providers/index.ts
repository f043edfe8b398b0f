export type { GitHubClient } from './github.js';
export { microagentContent, repositoryMicroagents } from './microagents.js';
export * from './schemas.js';
export { GitProviderError, GitProviders, type PullRequestCheck } from './service.js';
