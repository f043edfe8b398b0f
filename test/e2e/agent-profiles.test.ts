// /api/agent-profiles (OpenHands'): named agent launch specs that reference an LLM profile, MCP
// servers and skills, and a start on one (`agent_profile_id`) — against the scripted LLM, a real MCP
// server and real skill files, so what each profile member changes is seen in what the LLM gets.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { allEvents, type Ev, serverAndLlm, waitForStatus } from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const home = tempDir('agentd-profile-home-');
mkdirSync(join(home, '.openhands', 'skills'), { recursive: true });
for (const [name, text] of [
  ['kept', 'KEPT-SKILL: ship with ./ship.sh'],
  ['dropped', 'DROPPED-SKILL: never shown'],
])
  writeFileSync(
    join(home, '.openhands', 'skills', `${name}.md`),
    `---\ntriggers:\n  - deploy\n---\n${text}\n`,
  );

const env = serverAndLlm({ keys: ['alice-key', 'bob-key'], skillsHome: home });
const { llm } = env;

type Body = Record<string, unknown> & { detail?: unknown };
const call = async (method: string, path: string, body?: unknown, key = 'alice-key') => {
  const res = await api(env.server, path, {
    method,
    key,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
};
const calcServer = {
  name: 'calc',
  command: process.execPath,
  args: [join(process.cwd(), 'test/support/mcp-server.mjs'), 'stdio'],
  env: {},
};
const finish = { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };
const idOf = async (name: string, key = 'alice-key') => {
  const list = (await call('GET', '/api/agent-profiles', undefined, key)).body.profiles as Body[];
  return list.find((p) => p.name === name)?.id as string;
};
const start = (body: Record<string, unknown>, key = 'alice-key') =>
  call(
    'POST',
    '/api/conversations',
    {
      workspace: { working_dir: tempDir('agentd-profile-ws-') },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'please deploy' }], run: true },
      ...body,
    },
    key,
  );
const toolNames = (request: { body: Record<string, unknown> }) =>
  ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe('agent profiles', () => {
  it('run their LLM profile, tools, skills, suffix and chosen MCP servers, and the conversation says which', async () => {
    const key = `sk-${randomUUID()}`;
    llm.script(key, [finish, finish, finish]);
    expect(
      (await call('POST', '/api/settings', { mcp_config: { stdio_servers: [calcServer] } })).status,
    ).toBe(200);
    const llmProfile = {
      model: 'openai/scripted',
      api_key: key,
      base_url: llm.openaiBaseUrl,
      num_retries: 0,
    };
    expect((await call('POST', '/api/profiles/scripted', { llm: llmProfile })).status).toBe(201);
    const coder = {
      llm_profile_ref: 'scripted',
      mcp_server_refs: ['calc'],
      tools: [{ name: 'terminal' }],
      disabled_skills: ['dropped', 'ws-dropped'],
      system_message_suffix: 'SUFFIX-MARK: answer in haiku',
    };
    const saved = await call('POST', '/api/agent-profiles/coder', coder);
    expect(saved).toEqual({ status: 201, body: { name: 'coder', message: "Agent profile 'coder' saved" } });
    const id = await idOf('coder');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    // The workspace's skills, read per conversation, are left out by the same names.
    const workspace = tempDir('agentd-profile-ws-');
    mkdirSync(join(workspace, '.openhands', 'skills'), { recursive: true });
    writeFileSync(
      join(workspace, '.openhands', 'skills', 'ws-dropped.md'),
      '---\ntriggers:\n  - deploy\n---\nWS-DROPPED-SKILL\n',
    );
    const started = await start({ agent_profile_id: id, workspace: { working_dir: workspace } });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body.launched_agent_profile).toEqual({ agent_profile_id: id, revision: 0 });
    const conversation = started.body.id as string;
    expect(await waitForStatus(env.server, conversation, ['finished', 'error'])).toBe('finished');
    const [first] = llm.requestsFor(key);
    const sent = JSON.stringify(first!.body.messages);
    expect(sent).toContain('SUFFIX-MARK: answer in haiku');
    expect(sent).toContain('KEPT-SKILL');
    expect(sent).not.toContain('DROPPED-SKILL');
    expect(sent).not.toContain('WS-DROPPED-SKILL');
    expect(toolNames(first!)).toEqual(expect.arrayContaining(['terminal', 'add', 'finish']));
    expect(toolNames(first!)).not.toContain('file_editor');
    const message = (await allEvents(env.server, conversation)).find(
      (e) => e.kind === 'MessageEvent' && e.source === 'user',
    ) as Ev & { activated_skills: string[] };
    expect(message.activated_skills).toEqual(['kept']);
    // The key reached the LLM, never the conversation's answer.
    expect(JSON.stringify((await call('GET', `/api/conversations/${conversation}`)).body)).not.toContain(key);

    // Saved again: the same id, one revision on; a start records the revision it ran.
    expect((await call('POST', '/api/agent-profiles/coder', { ...coder, mcp_server_refs: [] })).status).toBe(
      201,
    );
    expect(await idOf('coder')).toBe(id);
    const again = await start({ agent_profile_id: id });
    expect(again.body.launched_agent_profile).toEqual({ agent_profile_id: id, revision: 1 });
    expect(await waitForStatus(env.server, again.body.id as string, ['finished', 'error'])).toBe('finished');
    // [] chooses none of the settings' MCP servers.
    expect(toolNames(llm.requestsFor(key)[1]!)).not.toContain('add');
    // A conversation started otherwise records no profile.
    const plain = await start({ llm_profile: 'scripted' });
    expect(plain.body.launched_agent_profile).toBeNull();
    expect(await waitForStatus(env.server, plain.body.id as string, ['finished', 'error'])).toBe('finished');
  });

  it('give the task tool to an agent that names no tools when enable_sub_agents is on', async () => {
    const key = `sk-${randomUUID()}`;
    llm.script(key, [finish]);
    const llmProfile = {
      model: 'openai/scripted',
      api_key: key,
      base_url: llm.openaiBaseUrl,
      num_retries: 0,
    };
    expect((await call('POST', '/api/profiles/delegating', { llm: llmProfile })).status).toBe(201);
    const saved = await call('POST', '/api/agent-profiles/delegator', {
      llm_profile_ref: 'delegating',
      enable_sub_agents: true,
    });
    expect(saved.status).toBe(201);
    const { profile } = (await call('GET', '/api/agent-profiles/delegator')).body as { profile: Body };
    expect(profile).toMatchObject({ enable_sub_agents: true, tools: null });
    const started = await start({ agent_profile_id: profile.id });
    expect(await waitForStatus(env.server, started.body.id as string, ['finished', 'error'])).toBe(
      'finished',
    );
    expect(toolNames(llm.requestsFor(key)[0]!)).toEqual(
      expect.arrayContaining(['terminal', 'file_editor', 'task_tracker', 'task']),
    );
  });

  it('refuses a start it cannot resolve, each with its status', async () => {
    const unknown = await start({ agent_profile_id: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/Agent profile with id '.+' not found/);

    // A soft reference to an LLM profile that is not there is saved (as OpenHands) and refused at the start.
    expect((await call('POST', '/api/agent-profiles/orphan', { llm_profile_ref: 'missing' })).status).toBe(
      201,
    );
    const orphan = await start({ agent_profile_id: await idOf('orphan') });
    expect(orphan.status).toBe(404);
    expect(orphan.body.detail).toMatch(/runs on LLM profile 'missing', which is not there/);

    expect(
      (
        await call('POST', '/api/agent-profiles/dangling', {
          llm_profile_ref: 'scripted',
          mcp_server_refs: ['gone'],
        })
      ).status,
    ).toBe(201);
    const dangling = await start({ agent_profile_id: await idOf('dangling') });
    expect(dangling.status).toBe(422);
    expect(JSON.stringify(dangling.body.detail)).toContain('settings do not hold: gone');

    const coder = await idOf('coder');
    for (const member of [{ agent_settings: { llm: { model: 'openai/x' } } }, { llm_model: 'openai/x' }]) {
      const both = await start({ agent_profile_id: coder, ...member });
      expect(both.status).toBe(422);
      expect(JSON.stringify(both.body.detail)).toContain('mutually exclusive');
    }
    // Another user's profile is none of theirs.
    expect((await start({ agent_profile_id: coder }, 'bob-key')).status).toBe(404);
  });

  it('are kept per user: seeded from the settings, saved, renamed, activated and deleted as OpenHands does', async () => {
    // Bob's first list makes a `default` profile (and LLM profile) from his settings, and activates it.
    expect(
      (await call('POST', '/api/settings', { llm_model: 'openai/gpt-4o', llm_api_key: 'sk-bob' }, 'bob-key'))
        .status,
    ).toBe(200);
    const seeded = (await call('GET', '/api/agent-profiles', undefined, 'bob-key')).body;
    const seededId = (seeded.profiles as Body[])[0]!.id as string;
    expect(seeded).toEqual({
      profiles: [
        {
          id: seededId,
          name: 'default',
          agent_kind: 'openhands',
          revision: 0,
          llm_profile_ref: 'default',
          mcp_server_refs: null,
        },
      ],
      active_agent_profile_id: seededId,
    });
    const llmProfiles = (await call('GET', '/api/profiles', undefined, 'bob-key')).body.profiles as Body[];
    expect(llmProfiles).toMatchObject([{ name: 'default', model: 'openai/gpt-4o', api_key_set: true }]);
    expect((await call('GET', '/api/settings', undefined, 'bob-key')).body.active_agent_profile_id).toBe(
      seededId,
    );
    // Alice's profiles are not Bob's.
    expect((await call('GET', '/api/agent-profiles/coder', undefined, 'bob-key')).status).toBe(404);

    // The whole profile, OpenHands' defaults filled in; no secret in it or in the stored document's profiles.
    const detail = await call('GET', '/api/agent-profiles/default', undefined, 'bob-key');
    expect(detail.body).toMatchObject({
      name: 'default',
      profile: {
        schema_version: 2,
        id: seededId,
        agent: 'CodeActAgent',
        tools: null,
        disabled_skills: [],
        condenser: { condenser_kind: 'llm_summarizing', enabled: true, max_size: 240, keep_first: 2 },
        verification: { critic_enabled: false },
        enable_switch_llm_tool: true,
        tool_concurrency_limit: 1,
      },
    });
    const stored = JSON.parse((await env.server.store.settings.get(userIdForSessionKey('bob-key'))) ?? '{}');
    expect(JSON.stringify(stored.agent_profiles)).not.toContain('sk-bob');

    // Renamed: the id and the pointer stay. Activated by id; PATCH moves the pointer too.
    const renamed = await call('POST', '/api/agent-profiles/default/rename', { new_name: 'main' }, 'bob-key');
    expect(renamed.body).toEqual({ name: 'main', message: "Agent profile 'default' renamed to 'main'" });
    expect(await idOf('main', 'bob-key')).toBe(seededId);
    await call('POST', '/api/agent-profiles/second', { llm_profile_ref: 'default' }, 'bob-key');
    const second = await idOf('second', 'bob-key');
    const activated = await call('POST', `/api/agent-profiles/${second}/activate`, undefined, 'bob-key');
    expect(activated.body).toEqual({
      id: second,
      message: `Agent profile '${second}' activated`,
      agent_settings_applied: false,
    });
    expect((await call('GET', '/api/settings', undefined, 'bob-key')).body).toMatchObject({
      active_agent_profile_id: second,
      llm_model: 'openai/gpt-4o',
    });
    const patched = await call('PATCH', '/api/settings', { active_agent_profile_id: seededId }, 'bob-key');
    expect(patched.body.active_agent_profile_id).toBe(seededId);
    expect(
      (await call('PATCH', '/api/settings', { active_agent_profile_id: randomUUID() }, 'bob-key')).status,
    ).toBe(404);
    expect(
      (await call('POST', `/api/agent-profiles/${randomUUID()}/activate`, undefined, 'bob-key')).status,
    ).toBe(404);

    // The LLM profile they run on cannot be deleted; renaming it carries the new name into them.
    const refused = await call('DELETE', '/api/profiles/default', undefined, 'bob-key');
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      "LLM profile 'default' is referenced by 2 agent profile(s): main, second",
    );
    expect((await call('POST', '/api/profiles/default/rename', { new_name: 'gpt' }, 'bob-key')).status).toBe(
      200,
    );
    const listed = (await call('GET', '/api/agent-profiles', undefined, 'bob-key')).body.profiles as Body[];
    expect(listed.map((p) => p.llm_profile_ref)).toEqual(['gpt', 'gpt']);

    // Deleting the active one clears the pointer; deleting what is not there is no error.
    expect((await call('DELETE', '/api/agent-profiles/main', undefined, 'bob-key')).status).toBe(200);
    expect((await call('GET', '/api/agent-profiles', undefined, 'bob-key')).body).toMatchObject({
      active_agent_profile_id: null,
    });
    expect((await call('DELETE', '/api/agent-profiles/main', undefined, 'bob-key')).status).toBe(200);
    expect((await call('POST', '/api/agent-profiles/main/rename', { new_name: 'x' }, 'bob-key')).status).toBe(
      404,
    );
    expect(
      (await call('POST', '/api/agent-profiles/second/rename', { new_name: 'second' }, 'bob-key')).body,
    ).toEqual({
      name: 'second',
      message: "Agent profile 'second' unchanged (same name)",
    });
  });

  it('refuse what agentd cannot keep or run, with a 422 at the member', async () => {
    const refusals: [Record<string, unknown>, string[]][] = [
      [
        { llm_profile_ref: 'x', verification: { enable_iterative_refinement: true } },
        ['body', 'verification', 'enable_iterative_refinement'],
      ],
      [
        { llm_profile_ref: 'x', verification: { critic_server_url: 'http://critic' } },
        ['body', 'verification', 'critic_server_url'],
      ],
      [{ llm_profile_ref: 'x', agent_kind: 'acp' }, ['body', 'agent_kind']],
      [{ llm_profile_ref: 'x', schema_version: 3 }, ['body', 'schema_version']],
      [{ llm_profile_ref: 'x', surprise: 1 }, ['body', 'surprise']],
      [{ mcp_server_refs: null }, ['body', 'llm_profile_ref']],
      [{ llm_profile_ref: '../etc' }, ['body', 'llm_profile_ref']],
      [
        {
          llm_profile_ref: 'x',
          disabled_skills: Array.from({ length: 300 }, (_, i) => `skill-${i}-${'x'.repeat(240)}`),
        },
        ['body'],
      ],
    ];
    for (const [body, loc] of refusals) {
      const refused = await call('POST', '/api/agent-profiles/refused', body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(
        (refused.body.detail as { loc: string[] }[]).map((d) => d.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    expect(
      (await call('POST', '/api/agent-profiles/acp', { llm_profile_ref: 'x', agent_kind: 'acp' })).body
        .detail,
    ).toEqual([{ loc: ['body', 'agent_kind'], msg: 'Input should be "openhands"', type: 'const' }]);
    expect((await call('GET', '/api/agent-profiles/refused')).status).toBe(404);
    // A version 1 profile is read as OpenHands migrates it: its embedded skills dropped.
    const v1 = await call('POST', '/api/agent-profiles/old', {
      schema_version: 1,
      llm_profile_ref: 'x',
      skills: [{ name: 's' }],
    });
    expect(v1.status).toBe(201);
    const old = (await call('GET', '/api/agent-profiles/old')).body.profile as Body;
    expect(old.schema_version).toBe(2);
    expect(old).not.toHaveProperty('skills');
  });

  it('say in a dry run what a start would resolve, without refusing', async () => {
    const report = await call('POST', '/api/agent-profiles/coder/materialize');
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      agent_kind: 'openhands',
      valid: true,
      errors: [],
      llm_profile_ref: 'scripted',
      llm_profile_resolved: true,
      llm_api_key_set: true,
      mcp_server_refs: [],
      resolved_mcp_config_keys: [],
      disabled_skills: ['dropped', 'ws-dropped'],
      resolved_skills: ['kept'],
    });
    const settings = report.body.resolved_settings as { llm: Body; agent_context: Body };
    expect(settings.llm).toMatchObject({ model: 'openai/scripted', api_key: '**********' });
    expect(settings.agent_context.system_message_suffix).toBe('SUFFIX-MARK: answer in haiku');

    const broken = (await call('POST', '/api/agent-profiles/dangling/materialize')).body;
    expect(broken).toMatchObject({
      valid: false,
      errors: ['MCP server(s) not configured: gone'],
      dangling_mcp_server_refs: ['gone'],
      resolved_settings: null,
    });
    const orphan = (await call('POST', '/api/agent-profiles/orphan/materialize')).body;
    expect(orphan).toMatchObject({
      valid: false,
      llm_profile_resolved: false,
      errors: ["LLM profile 'missing' not found"],
    });
    expect((await call('POST', '/api/agent-profiles/none/materialize')).status).toBe(404);
  });

  it('stop at the limit', async () => {
    const before = ((await call('GET', '/api/agent-profiles')).body.profiles as Body[]).length;
    for (let i = before; i < 50; i++)
      expect((await call('POST', `/api/agent-profiles/p${i}`, { llm_profile_ref: 'scripted' })).status).toBe(
        201,
      );
    const over = await call('POST', '/api/agent-profiles/one-more', { llm_profile_ref: 'scripted' });
    expect(over.status).toBe(409);
    expect(over.body.detail).toMatch(/limit reached \(50\)/);
    // Replacing one is no new profile.
    expect((await call('POST', '/api/agent-profiles/coder', { llm_profile_ref: 'scripted' })).status).toBe(
      201,
    );
  });
});
