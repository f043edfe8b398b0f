// POST /api/sub-agents end to end, over real HTTP against definition files in temp folders: the key,
// OpenHands' SubAgentInfo shape, the merge (project > user > built-in, but never the project's in place
// of the user's own), the load_* flags and project_dir; and a user plugin's agents in POST /api/plugins.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const home = tempDir('agentd-sub-agents-home-');
const project = tempDir('agentd-sub-agents-project-');

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  write(
    join(project, '.agents', 'agents', 'reviewer.md'),
    '---\nname: reviewer\ndescription: Reviews. <example>review this</example>\ntools: [terminal]\npermission_mode: never_confirm\nmcp_servers:\n  fetch: {command: uvx}\naudience: maintainers\n---\nReview carefully.\n',
  );
  write(
    join(project, '.openhands', 'agents', 'general-purpose.md'),
    '---\ndescription: The project way\n---\nP\n',
  );
  write(join(project, '.openhands', 'agents', 'shared.md'), '---\nname: shared\n---\nproject\n');
  write(join(project, '.openhands', 'agents', 'broken.md'), '---\ncondenser: sometimes\n---\n');
  write(join(home, '.agents', 'agents', 'shared.md'), '---\nname: shared\n---\nuser\n');
  write(join(home, '.openhands', 'agents', 'code-explorer.md'), '---\ndescription: The user way\n---\nU\n');
  server = await startServer({ skillsHome: home });
});
afterAll(async () => {
  await server.close({ remove: true });
});

type Info = Record<string, unknown> & { name: string; level: string | null; is_builtin: boolean };
const list = async (body: Record<string, unknown>) => {
  const res = await api(server, '/api/sub-agents', { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { agents: Info[] }).agents;
};
const levels = (agents: Info[]) => agents.map((a) => [a.name, a.level]);

describe('POST /api/sub-agents', () => {
  it('needs the session key', async () => {
    const res = await api(server, '/api/sub-agents', { method: 'POST', body: '{}', key: null });
    expect(res.status).toBe(401);
  });

  it("merges the project's, the user's and the built-ins, the first of a name winning", async () => {
    const agents = await list({ project_dir: project });
    expect(levels(agents)).toEqual([
      ['reviewer', 'project'],
      ['general-purpose', 'project'],
      ['shared', 'user'],
      ['code-explorer', 'user'],
      ['bash-runner', 'builtin'],
      ['web-researcher', 'builtin'],
    ]);
    expect(agents.map((a) => a.is_builtin)).toEqual([false, false, false, false, true, true]);
    const reviewer = agents[0]!;
    // OpenHands' SubAgentInfo, member for member and in its order.
    expect(Object.keys(reviewer)).toEqual([
      'name',
      'description',
      'model',
      'color',
      'tools',
      'skills',
      'system_prompt',
      'when_to_use_examples',
      'permission_mode',
      'max_iteration_per_run',
      'max_budget_per_run',
      'mcp_config',
      'mcp_servers',
      'profile_store_dir',
      'hooks',
      'condenser',
      'metadata',
      'level',
      'source',
      'is_builtin',
    ]);
    expect(reviewer).toEqual({
      name: 'reviewer',
      description: 'Reviews. <example>review this</example>',
      model: 'inherit',
      color: null,
      tools: ['terminal'],
      skills: [],
      system_prompt: 'Review carefully.',
      when_to_use_examples: ['review this'],
      permission_mode: 'never_confirm',
      max_iteration_per_run: null,
      max_budget_per_run: null,
      mcp_config: { fetch: { command: 'uvx' } },
      mcp_servers: { fetch: { command: 'uvx' } },
      profile_store_dir: null,
      hooks: null,
      condenser: null,
      metadata: { audience: 'maintainers' },
      level: 'project',
      source: join(project, '.agents', 'agents', 'reviewer.md'),
      is_builtin: false,
    });
    expect(agents.find((a) => a.name === 'shared')!.system_prompt).toBe('user');
    expect(agents.find((a) => a.name === 'bash-runner')).toMatchObject({
      tools: ['terminal'],
      source: null,
      mcp_servers: null,
    });
  });

  it('reads what the load_* flags ask for, and no project without project_dir', async () => {
    expect(levels(await list({}))).toEqual([
      ['shared', 'user'],
      ['code-explorer', 'user'],
      ['bash-runner', 'builtin'],
      ['general-purpose', 'builtin'],
      ['web-researcher', 'builtin'],
    ]);
    expect(levels(await list({ project_dir: project, load_builtin: false, load_user: false }))).toEqual([
      ['reviewer', 'project'],
      ['general-purpose', 'project'],
      ['shared', 'project'],
    ]);
    expect(levels(await list({ project_dir: project, load_project: false, load_builtin: false }))).toEqual([
      ['shared', 'user'],
      ['code-explorer', 'user'],
    ]);
    expect(await list({ project_dir: null, load_user: false, load_builtin: false })).toEqual([]);
    // A folder that is not there has no agents; it is no error.
    expect(
      await list({ project_dir: join(project, 'missing'), load_user: false, load_builtin: false }),
    ).toEqual([]);
  });

  it('takes only an absolute project_dir', async () => {
    const res = await api(server, '/api/sub-agents', {
      method: 'POST',
      body: JSON.stringify({ project_dir: 'relative/dir' }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    expect(body.detail[0]!.loc).toEqual(['body', 'project_dir']);
  });

  it('is in the OpenAPI document with every status it answers', async () => {
    const doc = (await (await api(server, '/openapi.json', { key: null })).json()) as {
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths['/api/sub-agents']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '401', '422']),
    );
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['SubAgentsRequest', 'SubAgentInfo', 'SubAgentsResponse']),
    );
  });
});

describe('POST /api/plugins', () => {
  it("lists a user plugin's agents beside its skills", async () => {
    write(
      join(home, '.agents', 'plugins', 'helping', 'agents', 'helper.md'),
      '---\ndescription: Helps\n---\nH\n',
    );
    const res = await api(server, '/api/plugins', { method: 'POST', body: '{}' });
    const { plugins } = (await res.json()) as { plugins: { name: string; agents: unknown }[] };
    expect(plugins.find((p) => p.name === 'helping')!.agents).toEqual([
      { name: 'helper', description: 'Helps' },
    ]);
  });
});
