// What folders agentd does not control may hand it, through the real API: a workspace (a cloned
// repository), a skill being installed, a plugin. A link out of the folder is never followed (to a
// secret file, to /proc/self/environ), a FIFO does not hang the server, a huge file is read only as
// far as the bound, a link inside the folder still works; an extension with a link out of it is not
// installed; the installed skills' metadata cannot move where a skill is read from.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginContents, readPluginAt } from '../../src/agent/index.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const SECRET = `secret-${process.pid}-not-for-the-prompt`;
const home = tempDir('agentd-untrusted-home-');
const outside = join(tempDir('agentd-untrusted-outside-'), 'secret.txt');
let server: TestServer;

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
function link(path: string, target: string) {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
}
const post = async (path: string, body: unknown) => {
  const res = await api(server, path, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
};

beforeAll(async () => {
  writeFileSync(outside, `${SECRET}\n`);
  server = await startServer({ skillsHome: home });
});
afterAll(async () => {
  await server.close({ remove: true });
});

describe('files from folders agentd does not control', () => {
  it("reads a workspace's instructions, skills and sub-agent types only inside it", async () => {
    const ws = tempDir('agentd-untrusted-ws-');
    link(join(ws, 'AGENTS.md'), outside);
    link(join(ws, '.agents', 'skills', 'leak', 'SKILL.md'), outside);
    link(join(ws, '.openhands', 'skills', 'env.md'), '/proc/self/environ');
    link(join(ws, '.agents', 'agents', 'leak.md'), outside);
    execFileSync('mkfifo', [join(ws, 'CLAUDE.md')]);
    write(join(ws, 'docs', 'inner.md'), '---\nname: inner\n---\nINNER-SKILL\n');
    link(join(ws, '.openhands', 'skills', 'inner.md'), '../../docs/inner.md');
    write(join(ws, '.openhands', 'microagents', 'repo.md'), 'x'.repeat(5_000_000));

    const skills = await post('/api/skills', { load_public: false, load_user: false, project_dir: ws });
    expect(skills.status).toBe(200);
    expect(skills.text).not.toContain(SECRET);
    expect(skills.text).not.toContain('PATH=');
    const byName = Object.fromEntries(
      (JSON.parse(skills.text).skills as { name: string; content: string }[]).map((s) => [s.name, s.content]),
    );
    expect(Object.keys(byName).sort()).toEqual(['inner', 'repo']);
    expect(byName.inner).toBe('INNER-SKILL');
    expect(byName.repo).toBe(`${'x'.repeat(20_000)}\n[… cut at 20000 characters]`);

    const agents = await post('/api/sub-agents', { load_user: false, project_dir: ws });
    expect(agents.status).toBe(200);
    expect(agents.text).not.toContain(SECRET);
    expect((JSON.parse(agents.text).agents as { name: string }[]).map((a) => a.name)).not.toContain('leak');
  });

  it('installs no skill whose folder links out of it, and reads an installed one only from its folder', async () => {
    const folder = tempDir('agentd-untrusted-skill-');
    write(join(folder, 'SKILL.md'), '---\nname: linked-notes\n---\nNotes.\n');
    link(join(folder, 'notes.md'), outside);
    const refused = await post('/api/skills/install', { source: folder });
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.text).detail).toMatch(/links stay inside it: notes\.md/);

    const zero = tempDir('agentd-untrusted-zero-');
    link(join(zero, 'SKILL.md'), '/dev/zero');
    expect((await post('/api/skills/install', { source: zero })).status).toBe(422);

    const good = tempDir('agentd-untrusted-good-');
    write(join(good, 'SKILL.md'), '---\nname: good-notes\n---\nGOOD-NOTES\n');
    expect((await post('/api/skills/install', { source: good })).status).toBe(200);
    // The metadata (OpenHands' tools write it too) names another folder: it is not where agentd reads.
    const installed = join(home, '.openhands', 'skills', 'installed');
    const metadataFile = join(installed, '.installed.json');
    const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
    const elsewhere = tempDir('agentd-untrusted-elsewhere-');
    write(join(elsewhere, 'SKILL.md'), `---\nname: good-notes\n---\n${SECRET}\n`);
    metadata.extensions['good-notes'].install_path = elsewhere;
    writeFileSync(metadataFile, JSON.stringify(metadata));
    const listed = await api(server, '/api/skills/installed');
    expect(await listed.json()).toMatchObject({
      skills: [{ name: 'good-notes', install_path: join(installed, 'good-notes') }],
    });
    const user = await post('/api/skills', { load_public: false, load_project: false });
    expect(user.text).toContain('GOOD-NOTES');
    expect(user.text).not.toContain(SECRET);
  });

  it("lists a plugin's files without following its links", () => {
    const plugin = tempDir('agentd-untrusted-plugin-');
    write(join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'looped' }));
    write(join(plugin, 'skills', 'one.md'), '---\nname: one\n---\nOne.\n');
    link(join(plugin, 'loop'), '.');
    link(join(plugin, 'root'), '/');
    link(join(plugin, 'skills', 'leak.md'), outside);
    const loaded = readPluginAt(plugin);
    expect(loaded.skills.map((s) => s.name)).toEqual(['one']);
    expect(pluginContents(loaded).files).toEqual(['.claude-plugin/plugin.json', 'skills/one.md']);
  });
});
