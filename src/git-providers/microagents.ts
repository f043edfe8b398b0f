// A repository's microagents as OpenHands' microagent management page lists them
// (openhands/integrations/service_types.py): its `.cursorrules` and the markdown files of its
// microagents folder, `.openhands/microagents` (`microagents` in a repository named `.openhands` or
// `openhands-config`, an organization's shared one), README.md aside. Read through the user's token.
import { parseSkillFile } from '../agent/index.js';
import { type GitHubClient, GitHubError } from './github.js';
import type { MicroagentContent, RepositoryMicroagent } from './schemas.js';

/** Where the repository keeps its microagents. */
function microagentsFolder(repositoryName: string): string {
  const name = repositoryName.split('/').pop();
  return name === '.openhands' || name === 'openhands-config' ? 'microagents' : '.openhands/microagents';
}

/** The repository's microagents, without their text (the page asks for one's text when it opens it). */
export async function repositoryMicroagents(
  github: GitHubClient,
  repositoryName: string,
): Promise<RepositoryMicroagent[]> {
  const folder = microagentsFolder(repositoryName);
  const [cursorRules, entries] = await Promise.all([
    // Listed when it has text (as OpenHands lists it); a folder by that name, or a file GitHub does not
    // inline, is no microagent rather than a failed listing.
    github.file(repositoryName, '.cursorrules').catch((error: unknown) => {
      if (error instanceof GitHubError && error.status === 400) return null;
      throw error;
    }),
    github.folder(repositoryName, folder),
  ]);
  const createdAt = new Date().toISOString();
  const listed = (name: string, path: string): RepositoryMicroagent => ({
    name,
    path,
    created_at: createdAt,
    git_provider: 'github',
  });
  const files = (entries ?? []).filter(
    (e) => e.type === 'file' && e.name.endsWith('.md') && e.name !== 'README.md',
  );
  return [
    ...(cursorRules ? [listed('cursorrules', '.cursorrules')] : []),
    ...files.map((e) => listed(e.name.replaceAll('.md', ''), `${folder}/${e.name}`)),
  ];
}

/** One microagent's text and triggers; null where the repository has no such file. */
export async function microagentContent(
  github: GitHubClient,
  repositoryName: string,
  path: string,
): Promise<MicroagentContent | null> {
  const text = await github.file(repositoryName, path);
  if (text === null) return null;
  const { content, keywords } = parseSkillFile(text, path);
  return { content, path, triggers: keywords ?? [], git_provider: 'github' };
}
