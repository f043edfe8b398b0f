// OpenHands' `agent_settings` in POST /api/conversations (the SDK's AgentSettings: what GET
// /api/settings answers as `agent_settings`): with no `agent`, the agent is built from them, as the
// SDK's create_agent() does (its verification's critic as agentd's LLMCritic). An agent profile
// that is not there is a 404, never a run on some other agent (agent-profiles.test.ts runs them).
// `agent_launch_additions` (a deployment's words for the agent) reach its
// system prompt however the agent was given.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { serverAndLlm, waitForStatus } from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const env = serverAndLlm({ keys: ['test-key-1', 'other-key'] });

beforeAll(async () => {
  // Stored settings name another LLM: a start that fell back to them would call no scripted key.
  await api(env.server, '/api/settings', {
    method: 'POST',
    body: JSON.stringify({ llm_model: 'openai/from-settings', llm_api_key: 'sk-settings-never-used' }),
  });
});

const start = (body: Record<string, unknown>) =>
  api(env.server, '/api/conversations', {
    method: 'POST',
    body: JSON.stringify({
      workspace: { working_dir: tempDir('agentd-ws-') },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ...body,
    }),
  });

function scriptedLlm(text: string) {
  const key = `sk-${randomUUID()}`;
  env.llm.script(key, [{ text }]);
  return { key, llm: { model: 'openai/from-agent-settings', api_key: key, base_url: env.llm.openaiBaseUrl } };
}

type Info = { id: string; agent: Record<string, unknown> & { tools: { name: string }[] } };

describe('secrets_encrypted: settings round-tripped through a client that never sees a key', () => {
  it("opens the values this env.server sealed for the caller; another user's do not open (422)", async () => {
    const key = `sk-${randomUUID()}`;
    env.llm.script(key, [{ text: 'ran on the opened key' }]);
    const other = 'other-key';
    await api(env.server, '/api/settings', {
      method: 'POST',
      key: other,
      body: JSON.stringify({
        llm_model: 'openai/round-trip',
        llm_api_key: key,
        llm_base_url: env.llm.openaiBaseUrl,
      }),
    });
    const view = (await (
      await api(env.server, '/api/settings', { key: other, headers: { 'X-Expose-Secrets': 'encrypted' } })
    ).json()) as { agent_settings: { llm: { api_key: string } } };
    expect(view.agent_settings.llm.api_key).toMatch(/^v1:/);
    const started = await api(env.server, '/api/conversations', {
      method: 'POST',
      key: other,
      body: JSON.stringify({
        workspace: { working_dir: tempDir('agentd-ws-') },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        agent_settings: view.agent_settings,
        secrets_encrypted: true,
      }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    await waitForStatus({ ...env.server, key: other }, id, ['finished']);
    expect(env.llm.requestsFor(key)).toHaveLength(1);

    // The same sealed value sent by another user does not open for them.
    const stolen = await start({ agent_settings: view.agent_settings, secrets_encrypted: true });
    expect(stolen.status).toBe(422);
    expect(await stolen.json()).toMatchObject({ detail: [{ loc: ['body', 'secrets_encrypted'] }] });
    expect(env.llm.requestsFor(key)).toHaveLength(1);
  });
});

describe('agent_settings', () => {
  it('builds the agent from them: their LLM, the default tools, their condenser off', async () => {
    const { key, llm: spec } = scriptedLlm('built from agent_settings');
    const res = await start({
      agent_settings: { agent_kind: 'openhands', llm: spec, condenser: { enabled: false } },
    });
    expect(res.status).toBe(201);
    const info = (await res.json()) as Info;
    expect(info.agent).toMatchObject({ llm: { model: 'openai/from-agent-settings', api_key: '**********' } });
    expect(info.agent.tools.map((t) => t.name)).toEqual(['terminal', 'file_editor', 'task_tracker']);
    expect(info.agent.condenser ?? null).toBeNull();
    await waitForStatus(env.server, info.id, ['finished']);
    expect(env.llm.requestsFor(key)).toHaveLength(1);
    expect(env.llm.requestsFor('sk-settings-never-used')).toHaveLength(0);
  });

  it("takes OpenHands' condenser defaults, and the tools they name", async () => {
    const { llm: spec } = scriptedLlm('with a condenser');
    const res = await start({ agent_settings: { llm: spec, tools: [{ name: 'terminal' }] } });
    expect(res.status).toBe(201);
    const info = (await res.json()) as Info;
    expect(info.agent.tools.map((t) => t.name)).toEqual(['terminal']);
    expect(info.agent.condenser).toMatchObject({
      kind: 'LLMSummarizingCondenser',
      max_size: 240,
      keep_first: 2,
    });
    await waitForStatus(env.server, info.id, ['finished']);
  });

  it("runs the critic its verification enables, on the agent's LLM", async () => {
    const { llm } = scriptedLlm('judged');
    const res = await start({
      agent_settings: { llm, verification: { critic_enabled: true, critic_mode: 'all_actions' } },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Info).agent.critic).toEqual({ kind: 'LLMCritic', mode: 'all_actions' });
    const plain = (await (await start({ agent_settings: { llm } })).json()) as Info;
    expect(plain.agent.critic).toBeUndefined();
  });

  it('refuses what it cannot run: an ACP agent, settings without an LLM, an agent profile not there', async () => {
    const count = async () => (await (await api(env.server, '/api/conversations/count')).json()) as number;
    const before = await count();
    const { llm: spec } = scriptedLlm('unused');
    const acp = await start({ agent_settings: { agent_kind: 'acp', llm: spec } });
    expect(acp.status).toBe(422);
    expect(await acp.json()).toMatchObject({ detail: [{ loc: ['body', 'agent_settings', 'agent_kind'] }] });
    expect((await start({ agent_settings: { agent_kind: 'openhands' } })).status).toBe(422);
    const profile = await start({ agent_profile_id: randomUUID() });
    expect(profile.status).toBe(404);
    expect(JSON.stringify(await profile.json())).toMatch(/Agent profile with id '.+' not found/);
    const both = await start({ agent_profile_id: randomUUID(), agent: { llm: spec } });
    expect(JSON.stringify(await both.json())).toContain('mutually exclusive');
    // Nothing was started by any of them.
    expect(await count()).toBe(before);
  });
});

describe('agent_launch_additions', () => {
  const systemPrompt = (key: string) => {
    const messages = env.llm.requestsFor(key)[0]?.body.messages as { role: string; content: unknown }[];
    return JSON.stringify(messages.find((m) => m.role === 'system')?.content);
  };

  it("appends its text to the agent's system message suffix, after the agent's own", async () => {
    const { key, llm } = scriptedLlm('with additions');
    const res = await start({
      agent: { kind: 'Agent', llm, tools: [], agent_context: { system_message_suffix: 'OWN-SUFFIX' } },
      agent_launch_additions: { system_message_suffix_append: '  DEPLOYMENT-CONTEXT\n' },
    });
    expect(res.status).toBe(201);
    const info = (await res.json()) as Info;
    expect(info.agent.agent_context).toMatchObject({
      system_message_suffix: 'OWN-SUFFIX\n\nDEPLOYMENT-CONTEXT',
    });
    await waitForStatus(env.server, info.id, ['finished']);
    expect(systemPrompt(key)).toMatch(/OWN-SUFFIX.*DEPLOYMENT-CONTEXT/);
  });

  it('reaches an agent built from agent_settings too; a blank one adds nothing', async () => {
    const { key, llm } = scriptedLlm('from settings, with additions');
    const res = await start({
      agent_settings: { llm, condenser: { enabled: false } },
      agent_launch_additions: { system_message_suffix_append: 'FROM-THE-DEPLOYMENT' },
    });
    const info = (await res.json()) as Info;
    await waitForStatus(env.server, info.id, ['finished']);
    expect(systemPrompt(key)).toContain('FROM-THE-DEPLOYMENT');
    const blank = await start({
      agent_settings: { llm: scriptedLlm('blank').llm },
      agent_launch_additions: { system_message_suffix_append: '   ' },
    });
    expect(((await blank.json()) as Info).agent.agent_context ?? null).toBeNull();
  });

  it('refuses a member it does not know and text over 32,768 characters (422)', async () => {
    const { llm } = scriptedLlm('unused');
    const unknown = await start({ agent: { llm }, agent_launch_additions: { system_prompt: 'x' } });
    expect(unknown.status).toBe(422);
    const long = await start({
      agent: { llm },
      agent_launch_additions: { system_message_suffix_append: 'x'.repeat(32_769) },
    });
    expect(long.status).toBe(422);
    const { detail } = (await long.json()) as { detail: { loc: string[]; msg: string }[] };
    expect(detail[0]).toMatchObject({
      loc: ['body', 'agent_launch_additions', 'system_message_suffix_append'],
      msg: 'must NOT have more than 32768 characters',
    });
  });
});
