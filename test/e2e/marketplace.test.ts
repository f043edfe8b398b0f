// The public extensions repository (OpenHands' skills and plugins marketplaces, public skills, sync):
// a real git repository on this machine in OpenHands/extensions' layout — `.plugin/marketplace.json`
// a link to `marketplaces/<name>.json`, skills and plugins listed together — fetched by the server
// through file://, installed from the catalog's own coordinates.
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionsRepository, ExtensionsUnavailableError } from '../../src/agent/index.js';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { finishStep, info, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const repo = tempDir('agentd-extensions-repo-');
const home = tempDir('agentd-extensions-home-');
let server: TestServer;
const llm = new ScriptedLLM();

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-C', repo, ...args], {
    encoding: 'utf8',
  }).trim();
const write = (path: string, text: string) => {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
};
const skill = (name: string, trigger: string) =>
  `---\nname: ${name}\ndescription: The ${name} skill\ntriggers:\n  - ${trigger}\n---\nHow to ${name}.\n`;
const entry = (name: string, source: unknown) => ({ name, source, description: `About ${name}` });
function publish(entries: unknown[]) {
  write(
    'marketplaces/openhands-extensions.json',
    JSON.stringify({ name: 'test-market', owner: { name: 't' }, plugins: entries }),
  );
  git('add', '-A');
  git('commit', '-q', '-m', 'publish');
}

const call = async (method: string, path: string, body?: unknown, on: TestServer = server) => {
  const res = await api(on, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { detail?: string } };
};
const names = (list: unknown) => (list as { name: string }[]).map((item) => item.name).sort();

beforeAll(async () => {
  git('init', '-q', '-b', 'main');
  write('skills/greet/SKILL.md', skill('greet', 'hello'));
  write('skills/greet/scripts/wave.sh', 'echo wave\n');
  write('skills/tidy.md', skill('tidy', 'tidy'));
  write('skills/README.md', '# The skills\n');
  write(
    'plugins/clock/.plugin/plugin.json',
    JSON.stringify({ name: 'clock', version: '2.0.0', description: 'Tells the time' }),
  );
  write('plugins/clock/commands/now.md', '---\ndescription: The time now\n---\nSay the time.\n');
  mkdirSync(join(repo, '.plugin'));
  symlinkSync('../marketplaces/openhands-extensions.json', join(repo, '.plugin', 'marketplace.json'));
  publish([
    entry('greet', './skills/greet'),
    entry('clock', './plugins/clock'),
    entry('remote', { source: 'github', repo: 'someone/skills', ref: 'v1', path: 'skills/remote' }),
    // A git URL with a ref: a plugin's coordinates say it; a skill's one string cannot (left out).
    entry('far', { source: 'url', url: 'https://git.example/tools.git', ref: 'v2', path: 'plugins/far' }),
    entry('pinned', { source: 'url', url: 'https://git.example/tools.git', ref: 'v2', path: 'skills/p' }),
    // Left out: a folder outside the repository, an entry without a source, a bad name.
    entry('escape', `${'../'.repeat(20)}tmp`),
    { name: 'sourceless' },
    entry('Bad Name', './skills/greet'),
  ]);
  server = await startServer({ skillsHome: home, extensions: { url: `file://${repo}`, ref: 'main' } });
  await llm.start();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

describe('the marketplaces', () => {
  it('lists the skills with a source the install route takes, and installs one from there', async () => {
    const catalog = await call('GET', '/api/skills/marketplace');
    expect(catalog.status, JSON.stringify(catalog.body)).toBe(200);
    const skills = catalog.body.skills as { name: string; source: string; installed: boolean }[];
    // Plugins are the other catalog's; what leads out of the repository or is malformed is left out.
    expect(names(skills)).toEqual(['greet', 'remote']);
    const greet = skills.find((s) => s.name === 'greet')!;
    expect(greet).toMatchObject({ description: 'About greet', installed: false });
    expect(greet.source).toMatch(/\/extensions\/[0-9a-f]{16}\/skills\/greet$/);
    // A structured source in OpenHands' one-string form.
    expect(skills.find((s) => s.name === 'remote')!.source).toBe('github:someone/skills@v1/skills/remote');

    const installed = await call('POST', '/api/skills/install', { source: greet.source });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(installed.body).toMatchObject({ name: 'greet', enabled: true });
    const after = (await call('GET', '/api/skills/marketplace')).body.skills as {
      name: string;
      installed: boolean;
    }[];
    expect(after.find((s) => s.name === 'greet')!.installed).toBe(true);
  });

  it('lists the plugins with their coordinates and contents, and installs one from there', async () => {
    const catalog = await call('GET', '/api/plugins/marketplace');
    expect(catalog.status, JSON.stringify(catalog.body)).toBe(200);
    const plugins = catalog.body.plugins as ({ name: string; source: string } & Record<string, unknown>)[];
    expect(names(plugins)).toEqual(['clock', 'far']);
    expect(plugins.find((p) => p.name === 'far')).toEqual({
      name: 'far',
      description: 'About far',
      source: 'https://git.example/tools.git',
      ref: 'v2',
      repo_path: 'plugins/far',
      installed: false,
      path: null,
      skills: null,
      agents: null,
      files: null,
    });
    const clock = plugins.find((p) => p.name === 'clock')!;
    expect(clock).toMatchObject({
      description: 'About clock',
      ref: null,
      repo_path: null,
      installed: false,
      skills: [{ name: 'clock:now', description: 'The time now' }],
      agents: [],
      files: ['.plugin/plugin.json', 'commands/now.md'],
    });
    expect(clock.path).toBe(clock.source);

    const installed = await call('POST', '/api/plugins/install', {
      source: clock.source,
      ref: clock.ref,
      repo_path: clock.repo_path,
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    expect(installed.body).toMatchObject({ name: 'clock', version: '2.0.0' });
    const after = (await call('GET', '/api/plugins/marketplace')).body.plugins as {
      name: string;
      installed: boolean;
    }[];
    expect(after.find((p) => p.name === 'clock')!.installed).toBe(true);
  });
});

describe('public skills (POST /api/skills)', () => {
  const skillsOf = async (body: Record<string, unknown>) => {
    const answer = await call('POST', '/api/skills', { load_project: false, load_user: false, ...body });
    expect(answer.status).toBe(200);
    return answer.body as { skills: { name: string; triggers: string[] }[]; sources: Record<string, number> };
  };

  it("are every skill of the repository's skills/ when it has no default marketplace file", async () => {
    const all = await skillsOf({});
    expect(names(all.skills)).toEqual(['greet', 'tidy']);
    expect(all.sources.sdk_base).toBe(2);
    expect(all.skills.find((s) => s.name === 'tidy')!.triggers).toEqual(['tidy']);
    expect((await skillsOf({ load_public: false })).skills).toEqual([]);
  });

  it('are those a named marketplace file lists; none for a file it cannot read, or one outside the repository', async () => {
    expect(
      names((await skillsOf({ marketplace_path: 'marketplaces/openhands-extensions.json' })).skills),
    ).toEqual(['greet']);
    expect((await skillsOf({ marketplace_path: 'marketplaces/none.json' })).skills).toEqual([]);
    // A marketplace file outside the repository is not read, however well-formed.
    const outside = join(tempDir('agentd-extensions-outside-'), 'market.json');
    writeFileSync(outside, JSON.stringify({ plugins: [entry('tidy', './skills/tidy')] }));
    expect((await skillsOf({ marketplace_path: outside })).skills).toEqual([]);
    expect(names((await skillsOf({ marketplace_path: null })).skills)).toEqual(['greet', 'tidy']);
  });

  it("rank below the user's own skill of the same name", async () => {
    const mine = join(home, '.agents', 'skills', 'tidy');
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'SKILL.md'), skill('tidy', 'sweep'));
    const merged = await skillsOf({ load_user: true });
    expect(merged.skills.find((s) => s.name === 'tidy')!.triggers).toEqual(['sweep']);
  });
});

describe("load_plugin: a plugin from the conversation's registered marketplaces, after its start", () => {
  /** A marketplace in a plain folder: one plugin with a keyword skill; `clock` here names it too. */
  const market = tempDir('agentd-extensions-market-');
  mkdirSync(join(market, '.plugin'));
  mkdirSync(join(market, 'plugins', 'stamp', 'skills', 'stamp-skill'), { recursive: true });
  writeFileSync(
    join(market, 'plugins', 'stamp', 'skills', 'stamp-skill', 'SKILL.md'),
    skill('stamp-skill', 'stampit').replace('How to stamp-skill.', 'STAMP-KNOWLEDGE'),
  );
  writeFileSync(
    join(market, '.plugin', 'marketplace.json'),
    JSON.stringify({
      name: 'local',
      plugins: [entry('stamp', './plugins/stamp'), entry('clock', './plugins/stamp')],
    }),
  );
  const registrations = () => [
    { name: 'local', source: market },
    { name: 'ext', source: `file://${repo}`, ref: 'main' },
  ];
  const load = (id: string, plugin_ref: string) =>
    call('POST', `/api/conversations/${id}/load_plugin`, { plugin_ref });

  it("joins the stored agent, and the next run's skills", async () => {
    const { id, key } = await startConversation(server, llm, [finishStep, finishStep], {
      agent: { agent_context: { registered_marketplaces: registrations() } },
    });
    await waitForStatus(server, id, ['finished']);
    expect(await load(id, 'stamp@local')).toEqual({ status: 200, body: { success: true } });
    const stored = (await info(server, id)) as { agent: { agent_context: { skills: { name: string }[] } } };
    expect(stored.agent.agent_context.skills.map((s) => s.name)).toContain('stamp-skill');
    const send = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'now stampit' }], run: true }),
    });
    expect(send.status).toBe(200);
    await expect.poll(() => llm.requestsFor(key).length).toBe(2);
    await waitForStatus(server, id, ['finished']);
    expect(JSON.stringify(llm.requestsFor(key)[1]!.body.messages)).toContain('STAMP-KNOWLEDGE');
    expect(JSON.stringify(llm.requestsFor(key)[0]!.body.messages)).not.toContain('STAMP-KNOWLEDGE');
    // From the git repository's marketplace, named there.
    expect((await load(id, 'clock@ext')).status).toBe(200);
  });

  it('is refused while a run goes (409), the agent left as it was', async () => {
    const { id } = await startConversation(server, llm, [{ ...finishStep, delayMs: 1_500 }], {
      agent: { agent_context: { registered_marketplaces: registrations() } },
    });
    await waitForStatus(server, id, ['running']);
    const refused = await load(id, 'stamp@local');
    expect(refused.status).toBe(409);
    await waitForStatus(server, id, ['finished']);
    const stored = (await info(server, id)) as { agent: { agent_context: { skills?: { name: string }[] } } };
    expect((stored.agent.agent_context.skills ?? []).map((s) => s.name)).not.toContain('stamp-skill');
  });

  it('joins a conversation that has not run yet', async () => {
    const { id } = await startConversation(server, llm, [], {
      message: '',
      agent: { agent_context: { registered_marketplaces: registrations() } },
    });
    expect((await load(id, 'stamp@local')).status).toBe(200);
    const stored = (await info(server, id)) as { agent: { agent_context: { skills: { name: string }[] } } };
    expect(stored.agent.agent_context.skills.map((s) => s.name)).toContain('stamp-skill');
  });

  it('answers what cannot be resolved: 404 unknown plugin or marketplace, 400 ambiguous, malformed or none registered', async () => {
    const { id } = await startConversation(server, llm, [finishStep], {
      agent: { agent_context: { registered_marketplaces: registrations() } },
    });
    await waitForStatus(server, id, ['finished']);
    const nope = await load(id, 'nope@local');
    expect(nope).toEqual({ status: 404, body: { detail: "Plugin 'nope' not found in marketplace 'local'" } });
    expect((await load(id, 'nope')).status).toBe(404);
    expect((await load(id, 'stamp@elsewhere')).body).toEqual({
      detail: "No marketplace named 'elsewhere' is registered",
    });
    const twice = await load(id, 'clock');
    expect(twice.status).toBe(400);
    expect(twice.body.detail).toContain("Plugin 'clock' is in several marketplaces (local, ext)");
    expect((await load(id, 'stamp@')).status).toBe(400);
    expect((await load('00000000-0000-4000-8000-000000000000', 'stamp@local')).status).toBe(404);

    const bare = await startConversation(server, llm, [finishStep]);
    await waitForStatus(server, bare.id, ['finished']);
    const none = await load(bare.id, 'stamp');
    expect(none.status).toBe(400);
    expect(none.body.detail).toContain('No marketplaces are registered');
  });

  it("refuses a start that asks a marketplace's plugins to be loaded at once (auto_load)", async () => {
    const refused = await call('POST', '/api/conversations', {
      agent: {
        llm: { model: 'openai/scripted-model', api_key: 'k', base_url: llm.openaiBaseUrl },
        agent_context: { registered_marketplaces: [{ ...registrations()[0], auto_load: true }] },
      },
      workspace: { working_dir: tempDir('agentd-ws-') },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('registered_marketplaces');
  });
});

describe('sync', () => {
  it('fetches the repository now: an entry published since shows at once', async () => {
    write('skills/lint/SKILL.md', skill('lint', 'lint'));
    publish([entry('greet', './skills/greet'), entry('lint', './skills/lint')]);
    // The copy is under five minutes old: the catalog is read from it as it is.
    expect(names((await call('GET', '/api/skills/marketplace')).body.skills)).toEqual(['greet', 'remote']);
    const synced = await call('POST', '/api/skills/sync');
    expect(synced).toEqual({
      status: 200,
      body: { status: 'success', message: 'Skills repository synced successfully' },
    });
    expect(names((await call('GET', '/api/skills/marketplace')).body.skills)).toEqual(['greet', 'lint']);
  });
});

describe("a start's load_user_skills and load_public_skills (OpenHands' AgentContext flags)", () => {
  it("fill in what the start's own skills do not name, the user's over the public ones; disabled ones stay out", async () => {
    const { id, key } = await startConversation(server, llm, [finishStep], {
      message: 'hello: sweep, then lint',
      agent: {
        agent_context: {
          load_user_skills: true,
          load_public_skills: true,
          marketplace_path: null,
          skills: [
            { name: 'greet', content: 'MINE-GREETING', trigger: { type: 'keyword', keywords: ['hello'] } },
          ],
          disabled_skills: ['lint'],
        },
      },
    });
    await waitForStatus(server, id, ['finished']);
    const stored = info(server, id) as Promise<{
      agent: { agent_context: { skills: Record<string, unknown>[] } };
    }>;
    const skills = (await stored).agent.agent_context.skills;
    // Resolved once, at the start, into the stored agent: the explicit greet, the user's tidy (not the
    // public one), the public lint (left out of the run by disabled_skills); and the command of the
    // plugin installed above, which every conversation gets.
    expect(skills.map((s) => s.name).sort()).toEqual(['clock:now', 'greet', 'lint', 'tidy']);
    expect(skills.find((s) => s.name === 'tidy')).toMatchObject({ trigger: { keywords: ['sweep'] } });
    const sent = JSON.stringify(llm.requestsFor(key)[0]!.body.messages);
    expect(sent).toContain('MINE-GREETING');
    expect(sent).toContain('How to tidy.');
    expect(sent).not.toContain('How to greet.');
    expect(sent).not.toContain('How to lint.');
  });
});

describe('a repository that cannot be had', () => {
  it('answers the catalogs with a 502 that says why, sync with its error, and the skills without public ones', async () => {
    const missing = await startServer({
      skillsHome: home,
      extensions: { url: `file://${join(repo, 'not-here')}`, ref: 'main' },
    });
    try {
      for (const path of ['/api/skills/marketplace', '/api/plugins/marketplace']) {
        const answer = await call('GET', path, undefined, missing);
        expect(answer.status).toBe(502);
        expect(answer.body.detail).toContain(`Cannot fetch file://${join(repo, 'not-here')} at main`);
      }
      const synced = await call('POST', '/api/skills/sync', undefined, missing);
      expect(synced.body.status).toBe('error');
      expect(synced.body.message).toContain('not-here');
      const skills = await call('POST', '/api/skills', { load_project: false, load_user: false }, missing);
      expect(skills).toMatchObject({ status: 200, body: { skills: [] } });
    } finally {
      await missing.close({ remove: true });
    }
  });

  it('without a repository configured: empty catalogs, and sync says there is none', async () => {
    const none = await startServer({ skillsHome: home });
    try {
      expect(await call('GET', '/api/skills/marketplace', undefined, none)).toEqual({
        status: 200,
        body: { skills: [] },
      });
      expect(await call('GET', '/api/plugins/marketplace', undefined, none)).toEqual({
        status: 200,
        body: { plugins: [] },
      });
      expect((await call('POST', '/api/skills/sync', undefined, none)).body).toEqual({
        status: 'error',
        message: 'This server has no extensions repository (AGENTD_EXTENSIONS_REPO)',
      });
    } finally {
      await none.close({ remove: true });
    }
  });

  it('keeps using the copy it has when a later fetch fails', async () => {
    const source = tempDir('agentd-extensions-moving-');
    execFileSync('git', ['clone', '-q', repo, join(source, 'r')]);
    const warnings: string[] = [];
    const extensions = new ExtensionsRepository({
      url: join(source, 'r'),
      ref: 'main',
      dir: join(tempDir('agentd-extensions-copy-'), 'copy'),
      maxAgeMs: 0,
      warn: (line) => warnings.push(line),
    });
    const dir = await extensions.current();
    renameSync(join(source, 'r'), join(source, 'gone'));
    expect(await extensions.current()).toBe(dir);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('using the copy');
    await expect(extensions.sync()).rejects.toBeInstanceOf(ExtensionsUnavailableError);
  });
});

describe('after a failed fetch', () => {
  it('answers at once for a minute without trying again; sync tries at once', async () => {
    const source = join(tempDir('agentd-extensions-late-'), 'r');
    const extensions = new ExtensionsRepository({
      url: source,
      ref: 'main',
      dir: join(tempDir('agentd-extensions-copy-'), 'copy'),
      maxAgeMs: 0,
      warn: () => {},
    });
    await expect(extensions.current()).rejects.toBeInstanceOf(ExtensionsUnavailableError);
    // There now, but not asked for again within the minute: the same failure, at once.
    execFileSync('git', ['clone', '-q', repo, source]);
    await expect(extensions.current()).rejects.toThrow(/Cannot fetch/);
    expect(await extensions.publicSkills(null)).toEqual([]);
    await extensions.sync();
    expect(names(await extensions.publicSkills(null))).toEqual(['greet', 'lint', 'tidy']);
  });
});

describe('AGENTD_EXTENSIONS_REPO and AGENTD_EXTENSIONS_REF', () => {
  const configOf = (env: Record<string, string>) =>
    resolveConfig({ dataDir: tempDir('agentd-extensions-config-'), auth: false }, env).extensions;

  it("default to OpenHands' repository at main; empty is none; github: and folders are taken", () => {
    expect(configOf({})).toEqual({ url: 'https://github.com/OpenHands/extensions', ref: 'main' });
    expect(configOf({ AGENTD_EXTENSIONS_REPO: '' })).toBeNull();
    expect(
      configOf({ AGENTD_EXTENSIONS_REPO: 'github:acme/extensions', AGENTD_EXTENSIONS_REF: 'v2' }),
    ).toEqual({
      url: 'https://github.com/acme/extensions.git',
      ref: 'v2',
    });
    expect(configOf({ AGENTD_EXTENSIONS_REPO: repo })?.url).toBe(repo);
  });

  it('refuse what git could read as an option, or what is no repository', () => {
    expect(() => configOf({ AGENTD_EXTENSIONS_REF: '--upload-pack=touch /tmp/x' })).toThrow(ConfigError);
    expect(() => configOf({ AGENTD_EXTENSIONS_REPO: 'github:acme/extensions@v1/skills' })).toThrow(
      /AGENTD_EXTENSIONS_REPO: Name the repository alone/,
    );
    expect(() => configOf({ AGENTD_EXTENSIONS_REPO: 'extensions' })).toThrow(/Unable to parse source/);
  });
});
