// Installed skills (OpenHands' /api/skills/install and /installed): an AgentSkills folder fetched from
// a real git repository (file:// on this machine) or a local folder, kept under the user's home, and
// offered as a user skill while enabled.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const home = tempDir('agentd-skills-home-');
const repo = tempDir('agentd-skills-repo-');
const installed = join(home, '.openhands', 'skills', 'installed');
let server: TestServer;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-C', repo, ...args], {
    encoding: 'utf8',
  }).trim();
const skillMd = (version: string) =>
  `---\nname: deploy-helper\ndescription: Ships the app\nversion: ${version}\ntriggers:\n  - deploy\n---\nRun ./scripts/ship.sh to deploy.\n`;
function commit(version: string): string {
  writeFileSync(join(repo, 'skills', 'deploy-helper', 'SKILL.md'), skillMd(version));
  git('add', '-A');
  git('commit', '-q', '-m', `v${version}`);
  return git('rev-parse', 'HEAD');
}

const call = async (method: string, path: string, body?: unknown) => {
  const res = await api(server, path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { detail?: unknown } };
};
const userSkillNames = async () =>
  ((await call('POST', '/api/skills', { load_project: false })).body.skills as { name: string }[]).map(
    (s) => s.name,
  );

beforeAll(async () => {
  git('init', '-q', '-b', 'main');
  mkdirSync(join(repo, 'skills', 'deploy-helper', 'scripts'), { recursive: true });
  writeFileSync(join(repo, 'skills', 'deploy-helper', 'scripts', 'ship.sh'), 'echo shipped\n');
  writeFileSync(join(repo, 'README.md'), 'not a skill\n');
  server = await startServer({ skillsHome: home });
});
afterAll(async () => {
  await server.close({ remove: true });
});

describe('installed skills', () => {
  it('installs from a git repository, pinned to its commit, and offers it as a user skill while enabled', async () => {
    const first = commit('1.0.0');
    const source = `file://${repo}`;
    const done = await call('POST', '/api/skills/install', { source, repo_path: 'skills/deploy-helper' });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({
      name: 'deploy-helper',
      version: '1.0.0',
      description: 'Ships the app',
      enabled: true,
      source,
      resolved_ref: first,
      repo_path: 'skills/deploy-helper',
      install_path: join(installed, 'deploy-helper'),
    });
    expect(readFileSync(join(installed, 'deploy-helper', 'scripts', 'ship.sh'), 'utf8')).toBe(
      'echo shipped\n',
    );
    expect(existsSync(join(installed, 'deploy-helper', '.git'))).toBe(false);
    // OpenHands' metadata file, so its own tools read the same installation.
    const metadata = JSON.parse(readFileSync(join(installed, '.installed.json'), 'utf8'));
    expect(metadata.extensions['deploy-helper']).toMatchObject({ resolved_ref: first, enabled: true });
    expect(await userSkillNames()).toContain('deploy-helper');

    expect((await call('GET', '/api/skills/installed')).body).toEqual({ skills: [done.body] });
    expect((await call('GET', '/api/skills/installed/deploy-helper')).body).toEqual(done.body);

    // Installed already: 409 unless forced.
    const again = await call('POST', '/api/skills/install', { source, repo_path: 'skills/deploy-helper' });
    expect(again.status).toBe(409);
    // Disabled: installed still, no user skill; a forced reinstall keeps it disabled.
    expect((await call('PATCH', '/api/skills/installed/deploy-helper', { enabled: false })).body).toEqual({
      name: 'deploy-helper',
      enabled: false,
    });
    expect(await userSkillNames()).not.toContain('deploy-helper');
    const forced = await call('POST', '/api/skills/install', {
      source,
      repo_path: 'skills/deploy-helper',
      force: true,
    });
    expect(forced.body).toMatchObject({ enabled: false, resolved_ref: first });
    expect((await call('PATCH', '/api/skills/installed/deploy-helper', { enabled: true })).status).toBe(200);
    expect(await userSkillNames()).toContain('deploy-helper');

    // Refreshed: fetched again from its source, the new commit installed.
    const second = commit('1.1.0');
    const refreshed = await call('POST', '/api/skills/installed/deploy-helper/refresh');
    expect(refreshed.body).toMatchObject({
      message: "Skill 'deploy-helper' updated",
      skill: { version: '1.1.0', resolved_ref: second },
    });
    // A ref pins it: the first commit again.
    const pinned = await call('POST', '/api/skills/install', {
      source,
      repo_path: 'skills/deploy-helper',
      ref: first,
      force: true,
    });
    expect(pinned.body).toMatchObject({ version: '1.0.0', resolved_ref: first });

    const removed = await call('DELETE', '/api/skills/installed/deploy-helper');
    expect(removed.body).toEqual({ message: "Skill 'deploy-helper' uninstalled" });
    expect(existsSync(join(installed, 'deploy-helper'))).toBe(false);
    expect((await call('GET', '/api/skills/installed/deploy-helper')).status).toBe(404);
    expect((await call('DELETE', '/api/skills/installed/deploy-helper')).status).toBe(404);
    expect((await call('POST', '/api/skills/installed/deploy-helper/refresh')).status).toBe(404);
    expect(await userSkillNames()).not.toContain('deploy-helper');
  });

  it('installs from a folder, and finds one put there by hand', async () => {
    const folder = tempDir('agentd-skill-folder-');
    writeFileSync(join(folder, 'SKILL.md'), '---\nname: local-notes\ndescription: Notes\n---\nKeep notes.\n');
    const done = await call('POST', '/api/skills/install', { source: folder });
    expect(done.body).toMatchObject({ name: 'local-notes', resolved_ref: null, source: folder });

    mkdirSync(join(installed, 'by-hand'));
    writeFileSync(join(installed, 'by-hand', 'SKILL.md'), '---\nname: by-hand\n---\nPut here by hand.\n');
    const names = ((await call('GET', '/api/skills/installed')).body.skills as { name: string }[]).map(
      (s) => s.name,
    );
    expect(names).toEqual(['by-hand', 'local-notes']);
    expect((await call('DELETE', '/api/skills/installed/by-hand')).status).toBe(200);
    expect(existsSync(join(installed, 'by-hand'))).toBe(false);
  });

  it('refuses what it cannot fetch or install, each with its status', async () => {
    const noSkill = tempDir('agentd-skill-empty-');
    const refusals: [Record<string, unknown>, number][] = [
      [{ source: 'nonsense' }, 400],
      [{ source: 'github:too/many/parts' }, 400],
      [{ source: `file://${repo}-missing` }, 400],
      [{ source: `file://${repo}`, repo_path: '../..' }, 400],
      [{ source: `file://${repo}`, repo_path: 'skills/none' }, 400],
      [{ source: `file://${repo}`, ref: '--upload-pack=touch' }, 400],
      [{ source: '--upload-pack=touch /tmp/x' }, 400],
      [{ source: noSkill, repo_path: 'x' }, 400],
      [{ source: `file://${repo}` }, 422],
      [{ source: noSkill }, 422],
      [{ source: '' }, 422],
      [{ source: noSkill, extra: 1 }, 422],
    ];
    for (const [body, status] of refusals) {
      const refused = await call('POST', '/api/skills/install', body);
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(refused.body.detail, JSON.stringify(body)).toBeTruthy();
    }
    const badName = tempDir('agentd-skill-bad-');
    writeFileSync(join(badName, 'SKILL.md'), '---\nname: Bad_Name\n---\nx\n');
    const named = await call('POST', '/api/skills/install', { source: badName });
    expect(named.status).toBe(422);
    expect(named.body.detail).toMatch(/Invalid skill name 'Bad_Name'/);
    expect((await call('GET', '/api/skills/installed/Bad_Name')).status).toBe(422);
    expect((await call('PATCH', '/api/skills/installed/nope', { enabled: true })).status).toBe(404);
  });
});
