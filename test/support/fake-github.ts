// A GitHub API on loopback that answers like GitHub's (its shapes, Link headers, bearer tokens) for the
// git-provider routes' tests: one user (octocat, token TOKEN), their repositories and an organization's,
// branches, pull requests and issues. Any other token gets GitHub's 401.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Json } from './v1.js';

export const TOKEN = 'ghp_GOOD-TOKEN-4242';
const HEAD_SHA = 'a'.repeat(40);

/** A file as GitHub's contents API answers it: its text in base64. */
const file = (name: string, text: string) => ({
  name,
  type: 'file',
  encoding: 'base64',
  content: Buffer.from(text).toString('base64'),
});

const repo = (id: number, fullName: string, more: Json = {}) => ({
  id,
  full_name: fullName,
  private: id % 2 === 0,
  stargazers_count: id * 10,
  pushed_at: '2026-11-01T10:00:00Z',
  default_branch: 'main',
  owner: { login: fullName.split('/')[0], type: fullName.startsWith('octo-org/') ? 'Organization' : 'User' },
  ...more,
});

/** GitHub's API as far as the routes read it; every request's path, query and Authorization kept. */
export class FakeGitHub {
  readonly requests: { path: string; query: URLSearchParams; authorization?: string }[] = [];
  private server!: Server;
  url = '';

  async start() {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  stop() {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(r));
  }

  private answer(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push({
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
    });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: 'Bad credentials' });
    const page = Number(url.searchParams.get('page') ?? '1');
    const next = (path: string) => ({ link: `<${this.url}${path}?page=${page + 1}>; rel="next"` });
    const q = url.searchParams.get('q') ?? '';
    switch (url.pathname) {
      case '/user':
        return send(200, {
          id: 7,
          login: 'octocat',
          avatar_url: 'https://avatars.example/7',
          name: 'Octo Cat',
        });
      case '/user/orgs':
        return send(200, [{ login: 'octo-org' }]);
      case '/user/installations':
        return send(403, { message: 'Resource not accessible by personal access token' });
      case '/user/repos':
        return page === 1
          ? send(200, [repo(1, 'octocat/hello'), repo(2, 'octo-org/secret')], next('/user/repos'))
          : send(200, [repo(3, 'octocat/old')]);
      case '/search/repositories':
        if (q === 'in:name hello user:octocat') return send(200, { items: [repo(1, 'octocat/hello')] });
        if (q === 'hello org:octo-org') return send(200, { items: [repo(4, 'octo-org/hello-org')] });
        if (q === 'org:octo-org in:name sec') return send(200, { items: [repo(2, 'octo-org/secret')] });
        if (q === 'in:name torvalds/linux is:public')
          return send(200, { items: [repo(5, 'torvalds/linux')] });
        return send(200, { items: [] });
      case '/repos/octocat/hello/branches': {
        const all = ['main', 'feature-a', 'feature-b', 'fix'].map((name, i) => ({
          name,
          commit: { sha: String(i).repeat(40) },
          protected: name === 'main',
        }));
        const size = Number(url.searchParams.get('per_page') ?? '30');
        const slice = all.slice((page - 1) * size, page * size);
        return send(200, slice, page * size < all.length ? next('/repos/octocat/hello/branches') : {});
      }
      case '/repos/octocat/missing/branches':
        return send(404, { message: 'Not Found' });
      case '/search/issues':
        if (q.includes('is:pr'))
          return send(200, {
            items: [7, 8, 9].map((number) => ({
              number,
              title: `PR ${number}`,
              repository_url: 'https://api.github.com/repos/octocat/hello',
            })),
          });
        return send(200, {
          items: [
            { number: 3, title: 'Bug', repository_url: 'https://api.github.com/repos/octo-org/secret' },
          ],
        });
      case '/repos/octocat/hello/pulls/7':
        return send(200, { state: 'open', mergeable_state: 'dirty', head: { sha: HEAD_SHA } });
      case '/repos/octocat/hello/pulls/8':
        return send(200, { state: 'open', mergeable_state: 'clean', head: { sha: 'b'.repeat(40) } });
      case '/repos/octocat/hello/pulls/9':
        return send(200, { state: 'open', mergeable_state: 'clean', head: { sha: 'c'.repeat(40) } });
      case '/repos/octocat/hello/pulls/10': // merged
        return send(200, { state: 'closed', merged: true, head: { sha: 'd'.repeat(40) } });
      // 8's statuses pass but a check run (GitHub Actions') failed; 9's all pass.
      case `/repos/octocat/hello/commits/${'b'.repeat(40)}/status`:
      case `/repos/octocat/hello/commits/${'c'.repeat(40)}/status`:
        return send(200, { state: 'success' });
      case `/repos/octocat/hello/commits/${'b'.repeat(40)}/check-runs`:
        return send(200, { check_runs: [{ conclusion: 'success' }, { conclusion: 'failure' }] });
      case `/repos/octocat/hello/commits/${'c'.repeat(40)}/check-runs`:
        return send(200, { check_runs: [{ conclusion: 'success' }] });
      // Microagents: octocat/hello has a .cursorrules and a microagents folder (a README, a text file
      // and a subfolder beside its one microagent); octo-org/.openhands keeps them in `microagents`.
      case '/repos/octocat/hello/contents/.cursorrules':
        return send(200, file('.cursorrules', 'Use tabs.\n'));
      case '/repos/octocat/hello/contents/.openhands/microagents':
        return send(200, [
          { name: 'README.md', type: 'file' },
          { name: 'deploy.md', type: 'file' },
          { name: 'nested', type: 'dir' },
          { name: 'notes.txt', type: 'file' },
        ]);
      case '/repos/octocat/hello/contents/.openhands/microagents/deploy.md':
        return send(
          200,
          file('deploy.md', '---\nname: deploy\ntriggers:\n- deploy\n- release\n---\n\nRun make deploy.\n'),
        );
      case '/repos/octocat/hello/contents/.openhands/microagents/huge.md':
        return send(200, { name: 'huge.md', type: 'file', encoding: 'none', content: '' });
      case '/repos/octocat/hello/contents/.openhands':
        return send(200, [{ name: 'microagents', type: 'dir' }]);
      case '/repos/octo-org/.openhands/contents/.cursorrules': // a folder of that name: no microagent
        return send(200, [{ name: 'notes.md', type: 'file' }]);
      case '/repos/octo-org/.openhands/contents/microagents':
        return send(200, [{ name: 'org-wide.md', type: 'file' }]);
      default:
        return send(404, { message: 'Not Found' });
    }
  }
}
