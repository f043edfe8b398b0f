// POST /api/skills, driven as the SDK's RemoteWorkspace.load_skills_from_agent_server does: the
// same JSON body (with org_config and sandbox_config null), reading `skills` and `sources`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const home = tempDir('agentd-skills-home-');
const project = tempDir('agentd-skills-project-');

function write(path: string, text: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  write(
    join(home, '.agents', 'skills', 'pdf', 'SKILL.md'),
    '---\nname: pdf\ndescription: Read PDF files\n---\nUse pdftotext.\n',
  );
  write(join(home, '.openhands', 'skills', 'git.md'), '---\ntriggers:\n  - git\n---\nThe user way of git.\n');
  write(
    join(home, '.openhands', 'microagents', 'docker.md'),
    '---\ntriggers: [docker, container]\n---\nDocker.\n',
  );
  write(join(project, 'AGENTS.md'), 'Run npm test before committing.\n');
  write(
    join(project, '.openhands', 'skills', 'git.md'),
    '---\ntriggers:\n  - git\n---\nThe project way of git.\n',
  );
  server = await startServer({ skillsHome: home });
});
afterAll(async () => {
  await server.close({ remove: true });
});

/** The SDK's payload (_call_skills_api). */
const load = (overrides: Record<string, unknown> = {}) =>
  api(server, '/api/skills', {
    method: 'POST',
    body: JSON.stringify({
      load_public: true,
      load_user: true,
      load_project: true,
      load_org: true,
      project_dir: project,
      org_config: null,
      sandbox_config: null,
      ...overrides,
    }),
  });

describe('POST /api/skills', () => {
  it("answers the user's and the workspace's skills, a project skill replacing a user one", async () => {
    const res = await load();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { skills: Record<string, unknown>[]; sources: Record<string, number> };
    expect(body.sources).toEqual({ sandbox: 0, registered_marketplaces: 0, sdk_base: 3, org: 0, project: 2 });
    const byName = Object.fromEntries(body.skills.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['AGENTS', 'docker', 'git', 'pdf']);
    expect(byName.pdf).toEqual({
      name: 'pdf',
      type: 'agentskills',
      content: 'Use pdftotext.',
      triggers: [],
      source: join(home, '.agents', 'skills', 'pdf', 'SKILL.md'),
      description: 'Read PDF files',
      is_agentskills_format: true,
      disable_model_invocation: false,
    });
    expect(byName.docker).toMatchObject({ type: 'knowledge', triggers: ['docker', 'container'] });
    expect(byName.git).toMatchObject({
      type: 'knowledge',
      content: 'The project way of git.',
      source: join(project, '.openhands', 'skills', 'git.md'),
    });
    expect(byName.AGENTS).toMatchObject({
      type: 'repo',
      content: 'Run npm test before committing.',
      triggers: [],
      is_agentskills_format: false,
    });
  });

  it('leaves out the sources the request turns off', async () => {
    const userOnly = (await (await load({ load_project: false })).json()) as {
      skills: { name: string; content: string }[];
      sources: Record<string, number>;
    };
    expect(userOnly.sources).toMatchObject({ sdk_base: 3, project: 0 });
    expect(userOnly.skills.find((s) => s.name === 'git')?.content).toBe('The user way of git.');

    const projectOnly = (await (await load({ load_user: false })).json()) as { skills: { name: string }[] };
    expect(projectOnly.skills.map((s) => s.name).sort()).toEqual(['AGENTS', 'git']);

    const missing = (await (await load({ load_user: false, project_dir: join(project, 'nope') })).json()) as {
      skills: unknown[];
    };
    expect(missing.skills).toEqual([]);
  });

  it("makes the sandbox's WORKER_ URLs the always-on work_hosts skill", async () => {
    const res = await load({
      load_user: false,
      load_project: false,
      sandbox_config: {
        exposed_urls: [
          { name: 'VSCODE', url: 'http://127.0.0.1:9000', port: 9000 },
          { name: 'WORKER_1', url: 'http://127.0.0.1:12000', port: 12000 },
        ],
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { skills: Record<string, unknown>[]; sources: Record<string, number> };
    expect(body.sources).toMatchObject({ sandbox: 1, sdk_base: 0, project: 0 });
    expect(body.skills).toEqual([
      {
        name: 'work_hosts',
        type: 'repo',
        content:
          'The user has access to the following hosts for accessing a web application, each of which has a corresponding port:\n* http://127.0.0.1:12000 (port 12000)',
        triggers: [],
        source: null,
        description: null,
        is_agentskills_format: false,
        disable_model_invocation: false,
      },
    ]);
  });

  it('refuses a relative project_dir and wrong types with a 422', async () => {
    expect((await load({ project_dir: 'relative/dir' })).status).toBe(422);
    expect((await load({ load_user: 'yes' })).status).toBe(422);
    expect((await api(server, '/api/skills', { method: 'POST', body: '{}', key: null })).status).toBe(401);
  });
});
