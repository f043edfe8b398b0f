// OpenHands' git-provider routes as its web UI's Integrations page and repository picker call them,
// against a GitHub API on loopback that answers like GitHub's (its shapes, Link headers, bearer tokens):
// storing a token only once GitHub accepts it, the user's repositories a page at a time, search,
// branches, suggested tasks, a repository's microagents; a V1 start that clones with the token and hands
// it to the agent; and the conversations the microagent management page started, while their PR is open.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, TOKEN } from '../support/fake-github.js';
import { rawRequest } from '../support/http.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { getJson, type Json, postJson, useScriptedLLM, waitForTask } from '../support/v1.js';

const github = new FakeGitHub();
const llm = new ScriptedLLM();
let server: TestServer;

beforeAll(async () => {
  await github.start();
  await llm.start();
  server = await startServer({
    keys: ['alice-key', 'bob-key'],
    githubApiUrl: github.url,
    controlPlane: { warmSpare: false, sandboxProvider: 'process' },
  });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
  await github.stop();
});

const call = async (method: string, path: string, body?: unknown, key = 'alice-key') => {
  const res = await api(server, path, {
    method,
    key,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};
/** What OpenHands' Integrations page sends: every provider, the ones left empty too. */
const connect = (githubToken: string, host = '') =>
  call('POST', '/api/add-git-providers', {
    provider_tokens: {
      github: { token: githubToken, host },
      gitlab: { token: '', host: '' },
      bitbucket: { token: '', host: '' },
    },
  });
const providersSet = async (key = 'alice-key') =>
  ((await call('GET', '/api/settings', undefined, key)).body as Json).provider_tokens_set;

describe('git providers', () => {
  it('stores a GitHub token only once GitHub accepts it, never shows it, and forgets it on unset', async () => {
    // The reason in `detail`, and in `error`, where OpenHands' web UI reads it.
    const invalid = 'Invalid token. Please make sure it is a valid github token.';
    expect(await connect('ghp_WRONG')).toEqual({ status: 400, body: { detail: invalid, error: invalid } });
    expect(await providersSet()).toEqual({});
    const gitlab = await call('POST', '/api/add-git-providers', {
      provider_tokens: { gitlab: { token: 'glpat-x' } },
    });
    expect(gitlab).toEqual({
      status: 400,
      body: {
        detail: 'agentd connects to GitHub only, not to gitlab',
        error: 'agentd connects to GitHub only, not to gitlab',
      },
    });

    expect(await connect(TOKEN)).toEqual({ status: 200, body: { message: 'Git providers stored' } });
    expect(await providersSet()).toEqual({ github: null });
    // A save with the field left empty keeps the token.
    expect((await connect('')).status).toBe(200);
    expect(await providersSet()).toEqual({ github: null });
    const everything = JSON.stringify((await call('GET', '/api/settings')).body);
    expect(everything).not.toContain(TOKEN);
    expect(await providersSet('bob-key')).toEqual({});

    expect((await call('GET', '/api/user/info')).body).toEqual({
      id: '7',
      login: 'octocat',
      avatar_url: 'https://avatars.example/7',
      company: null,
      name: 'Octo Cat',
      email: null,
    });
    // Another user has no token: a clear 400, not alice's.
    const bob = await call('GET', '/api/user/info', undefined, 'bob-key');
    expect(bob).toEqual({
      status: 400,
      body: { detail: 'Git provider token required: connect GitHub in the settings first' },
    });

    expect(await call('POST', '/api/unset-provider-tokens')).toEqual({
      status: 200,
      body: { message: 'Unset Git provider tokens' },
    });
    expect(await providersSet()).toEqual({});
    expect((await call('GET', '/api/user/info')).status).toBe(400);
    // GitHub out of reach (this server's GitHub API is a closed port): a 502, and nothing stored.
    const offline = await startServer();
    try {
      const body = JSON.stringify({ provider_tokens: { github: { token: TOKEN } } });
      const res = await api(offline, '/api/add-git-providers', { method: 'POST', body });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/^GitHub could not be reached/);
      expect(((await (await api(offline, '/api/settings')).json()) as Json).provider_tokens_set).toEqual({});
    } finally {
      await offline.close({ remove: true });
    }
    expect(github.requests.every((r) => r.authorization?.startsWith('Bearer '))).toBe(true);
  });

  it("lists the user's repositories a page at a time, searches them, and reads their branches", async () => {
    expect((await connect(TOKEN)).status).toBe(200);
    const first = await call(
      'GET',
      '/api/user/repositories?selected_provider=github&sort=pushed&page=1&per_page=2',
    );
    expect(first.status).toBe(200);
    const repos = first.body as Json[];
    expect(repos.map((r) => r.full_name)).toEqual(['octocat/hello', 'octo-org/secret']);
    expect(repos[1]).toEqual({
      id: '2',
      full_name: 'octo-org/secret',
      git_provider: 'github',
      is_public: false,
      stargazers_count: 20,
      link_header: `<${github.url}/user/repos?page=2>; rel="next"`,
      pushed_at: '2026-11-01T10:00:00Z',
      owner_type: 'organization',
      main_branch: 'main',
    });
    const last = (await call('GET', '/api/user/repositories?selected_provider=github&page=2&per_page=2'))
      .body as Json[];
    expect(last.map((r) => [r.full_name, r.link_header])).toEqual([['octocat/old', null]]);
    expect(github.requests.findLast((r) => r.path === '/user/repos')?.query.get('sort')).toBe('pushed');

    const search = async (query: string) =>
      (
        (await call('GET', `/api/user/search/repositories?query=${encodeURIComponent(query)}&per_page=100`))
          .body as Json[]
      ).map((r) => r.full_name);
    expect(await search('hello')).toEqual(['octocat/hello', 'octo-org/hello-org']);
    expect(await search('octo-org/sec')).toEqual(['octo-org/secret']);
    expect(await search('https://github.com/torvalds/linux')).toEqual(['torvalds/linux']);
    // OpenHands' microagent page asks for 500 a page: GitHub's most, 100, is asked; past 1,000 is a 422.
    const large = await call('GET', '/api/user/search/repositories?query=hello&per_page=500');
    expect(large.status).toBe(200);
    expect(github.requests.findLast((r) => r.path === '/search/repositories')?.query.get('per_page')).toBe(
      '100',
    );
    expect((await call('GET', '/api/user/search/repositories?query=hello&per_page=1001')).status).toBe(422);

    const branches = await call(
      'GET',
      '/api/user/repository/branches?repository=octocat%2Fhello&page=1&per_page=2',
    );
    expect(branches.body).toEqual({
      branches: [
        { name: 'main', commit_sha: '0'.repeat(40), protected: true, last_push_date: null },
        { name: 'feature-a', commit_sha: '1'.repeat(40), protected: false, last_push_date: null },
      ],
      has_next_page: true,
      current_page: 1,
      per_page: 2,
      total_count: null,
    });
    const found = (
      await call('GET', '/api/user/search/branches?repository=octocat/hello&query=FEAT&per_page=30')
    ).body as Json[];
    expect(found.map((b) => b.name)).toEqual(['feature-a', 'feature-b']);
    expect((await call('GET', '/api/user/repository/branches?repository=octocat/missing')).status).toBe(404);
    expect((await call('GET', '/api/user/repository/branches?repository=..%2F..%2Fuser')).status).toBe(422);
    expect((await call('GET', '/api/user/installations?provider=github')).body).toEqual([]);
    expect((await call('GET', '/api/user/repositories?selected_provider=gitlab')).status).toBe(400);
  });

  it('suggests the pull requests that need work (not the one that needs nothing) and the issues assigned to the user', async () => {
    expect((await connect(TOKEN)).status).toBe(200);
    const tasks = await call('GET', '/api/user/suggested-tasks');
    expect(tasks.body).toEqual([
      {
        git_provider: 'github',
        task_type: 'MERGE_CONFLICTS',
        repo: 'octocat/hello',
        issue_number: 7,
        title: 'PR 7',
      },
      {
        git_provider: 'github',
        task_type: 'FAILING_CHECKS',
        repo: 'octocat/hello',
        issue_number: 8,
        title: 'PR 8',
      },
      {
        git_provider: 'github',
        task_type: 'OPEN_ISSUE',
        repo: 'octo-org/secret',
        issue_number: 3,
        title: 'Bug',
      },
    ]);
  });

  it("lists a repository's microagents (its .cursorrules and microagents folder) and reads one's text and triggers", async () => {
    expect((await connect(TOKEN)).status).toBe(200);
    const listed = (await call('GET', '/api/user/repository/octocat/hello/microagents')).body as Json[];
    // README.md, a text file and a subfolder are no microagents; the listing carries no text.
    expect(listed.map(({ name, path, git_provider }) => ({ name, path, git_provider }))).toEqual([
      { name: 'cursorrules', path: '.cursorrules', git_provider: 'github' },
      { name: 'deploy', path: '.openhands/microagents/deploy.md', git_provider: 'github' },
    ]);
    expect(Number.isNaN(Date.parse(String(listed[0]!.created_at)))).toBe(false);
    // An organization's shared repository keeps them in `microagents` (its `.cursorrules` there is a folder,
    // no microagent); a repository without any has none.
    expect(
      ((await call('GET', '/api/user/repository/octo-org/.openhands/microagents')).body as Json[]).map(
        (m) => m.path,
      ),
    ).toEqual(['microagents/org-wide.md']);
    expect((await call('GET', '/api/user/repository/octocat/old/microagents')).body).toEqual([]);

    const content = (path: string) =>
      call(
        'GET',
        `/api/user/repository/octocat/hello/microagents/content?file_path=${encodeURIComponent(path)}`,
      );
    expect((await content('.openhands/microagents/deploy.md')).body).toEqual({
      content: 'Run make deploy.',
      path: '.openhands/microagents/deploy.md',
      triggers: ['deploy', 'release'],
      git_provider: 'github',
    });
    expect((await content('.cursorrules')).body).toMatchObject({ content: 'Use tabs.', triggers: [] });
    // What is not a readable file is a clear 4xx, and no path climbs out of the repository.
    expect((await content('.openhands/microagents/gone.md')).status).toBe(404);
    expect((await content('.openhands')).status).toBe(400);
    expect((await content('.openhands/microagents/huge.md')).status).toBe(400);
    const sent = github.requests.length;
    expect((await content('../../user')).status).toBe(400);
    // `..` as the owner (sent as it is: fetch would resolve it away) is refused too.
    const dots = await rawRequest(server.url, {
      method: 'GET',
      path: '/api/user/repository/%2E%2E/hello/microagents',
      headers: { 'X-Session-API-Key': 'alice-key' },
    });
    expect(dots.status).toBe(400);
    expect(github.requests.length).toBe(sent); // refused before anything went to GitHub
    expect((await call('GET', '/api/user/repository/octocat/hello/microagents/content')).status).toBe(422);

    // Without a token: the same 400 as the other GitHub routes; another user sees nothing of alice's.
    expect(
      (await call('GET', '/api/user/repository/octocat/hello/microagents', undefined, 'bob-key')).status,
    ).toBe(400);
  });

  it('gives a V1 conversation the token (GIT_TOKEN, GITHUB_TOKEN) and clones with it, never showing it', async () => {
    expect((await connect(TOKEN)).status).toBe(200);
    await useScriptedLLM(server, llm, [{ text: 'ready' }]);
    const started = await postJson(server, '/api/v1/app-conversations', {});
    const task = await waitForTask(server, started.id as string);
    expect(task.status).toBe('READY');
    const [view] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${task.app_conversation_id}`);
    const agentServer = {
      url: new URL(view!.conversation_url as string).origin,
      key: view!.session_api_key as string,
    };
    const info = await getJson(agentServer, `/api/conversations/${task.app_conversation_id}`);
    expect(info.secret_registry).toMatchObject({
      secret_sources: {
        GIT_TOKEN: { kind: 'StaticSecret', value: '**********' },
        GITHUB_TOKEN: { kind: 'StaticSecret', value: '**********' },
      },
    });

    // A clone signs in at the token's host (GitHub Enterprise's); when it fails, the task's detail does
    // not carry the token.
    const enterprise = { provider_tokens: { github: { token: '', host: '127.0.0.1:9' } } };
    expect((await call('POST', '/api/add-git-providers', enterprise)).status).toBe(200);
    const clone = await postJson(server, '/api/v1/app-conversations', {
      sandbox_id: view!.sandbox_id,
      selected_repository: 'octocat/private',
      git_provider: 'github',
    });
    const failed = await waitForTask(server, clone.id as string);
    expect(failed.status).toBe('ERROR');
    expect(failed.detail).toMatch(/^Cloning octocat\/private failed: .*127\.0\.0\.1/);
    expect(failed.detail).not.toContain(TOKEN);
  });

  it('lists the conversations the microagent management page started for a repository while their pull request is open', async () => {
    expect((await connect(TOKEN)).status).toBe(200);
    await useScriptedLLM(server, llm, [{ text: 'ready' }]);
    const first = await waitForTask(
      server,
      (await postJson(server, '/api/v1/app-conversations', {})).id as string,
    );
    const [view] = await getJson<Json[]>(
      server,
      `/api/v1/app-conversations?ids=${first.app_conversation_id}`,
    );
    const agentServer = {
      url: new URL(view!.conversation_url as string).origin,
      key: view!.session_api_key as string,
    };
    const info = await getJson(agentServer, `/api/conversations/${first.app_conversation_id}`);
    // The repository is already in the sandbox's workspace, so a start does not clone it.
    const workspace = (info.workspace as Json).working_dir as string;
    execFileSync('git', ['init', '-q', join(workspace, 'hello')]);
    const startFor = async (more: Json) => {
      const started = await postJson(server, '/api/v1/app-conversations', {
        sandbox_id: view!.sandbox_id,
        selected_repository: 'octocat/hello',
        git_provider: 'github',
        ...more,
      });
      const done = await waitForTask(server, started.id as string);
      expect(done.status).toBe('READY');
      return done.app_conversation_id as string;
    };
    const openPr = await startFor({ trigger: 'microagent_management', pr_number: [10, 7] });
    const noPrYet = await startFor({ trigger: 'microagent_management' });
    await startFor({ trigger: 'microagent_management', pr_number: [10] }); // merged: left out
    await startFor({ trigger: 'gui' }); // not the page's
    const listed = async (query: string) =>
      ((await call('GET', `/api/microagent-management/conversations?${query}`)).body as Json)
        .results as Json[];
    const page = await listed('selected_repository=octocat/hello&limit=1000');
    expect(page.map((c) => c.conversation_id)).toEqual([noPrYet, openPr]);
    expect(page[1]).toMatchObject({ trigger: 'microagent_management', selected_repository: 'octocat/hello' });
    expect(await listed('selected_repository=octocat/other&limit=1000')).toEqual([]);
    expect((await call('GET', '/api/microagent-management/conversations?limit=5')).status).toBe(422);
    expect(
      (await call('GET', '/api/microagent-management/conversations?selected_repository=a/b&limit=1001'))
        .status,
    ).toBe(422);
  });
});
