// OpenHands' switch_llm and switch_profile, over HTTP against the scripted LLM: the agent's next call
// goes to the new LLM (mid-run too), the change is stored (sealed) and announced as a state update
// `agent`, the spend so far stays counted, and a restart keeps it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script, ScriptStep } from '../../src/llm/index.js';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { allEvents, info, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ keys: ['alice-key', 'bob-key'] });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

/** A scripted LLM of its own key, answering `steps`. */
function scripted(model: string, steps: Script) {
  const key = `sk-${randomUUID()}`;
  llm.script(key, steps);
  return { key, llm: { model, api_key: key, base_url: llm.openaiBaseUrl, num_retries: 0 } };
}

const finish = (message: string): ScriptStep[] => [
  { toolCalls: [{ name: 'finish', arguments: { message } }] },
];

const post = (path: string, body: unknown, key = 'alice-key') =>
  api(server, path, { method: 'POST', key, body: JSON.stringify(body) });

const say = (id: string, text: string) =>
  post(`/api/conversations/${id}/events`, { role: 'user', content: [{ type: 'text', text }], run: true });

type Usage = Record<string, { response_latencies: unknown[] }>;
const usageOf = async (id: string) =>
  ((await info(server, id)).stats as { usage_to_metrics: Usage }).usage_to_metrics;

/** An idle conversation of alice's (no message yet) whose agent's LLM answers `steps`. */
const idleConversation = (steps: Script) => startConversation(server, llm, steps, { message: '' });

describe('switch_llm', () => {
  it('moves the agent to another LLM from its next call on, mid-run, and keeps the spend counted', async () => {
    const b = scripted('openai/model-b', finish('done on B'));
    // The same usage id as the agent's LLM: B goes on from A's figures (OpenHands' registry key).
    const llmB = { ...b.llm, usage_id: 'agent' };
    let id = '';
    let switched: Promise<Response> | undefined;
    const a = await idleConversation((_request, index) => {
      if (index > 0) return { text: 'A was asked again' };
      // The switch lands while A's answer is still on its way; the call after it goes to B.
      switched = post(`/api/conversations/${id}/switch_llm`, { llm: llmB });
      return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo done' } }], delayMs: 700 };
    });
    id = a.id;
    expect((await say(id, 'go')).status).toBe(200);
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const answer = await switched!;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ success: true });
    expect(llm.requestsFor(a.key)).toHaveLength(1);
    const toB = llm.requestsFor(b.key);
    expect(toB).toHaveLength(1);
    expect(toB[0]!.body.model).toBe('model-b');

    const events = await allEvents(server, id);
    const update = events.find((e) => e.kind === 'ConversationStateUpdateEvent' && e.key === 'agent');
    // Stored before A's answer (its ActionEvent): the switch came while A's call was under way.
    expect(events.indexOf(update!)).toBeLessThan(events.findIndex((e) => e.kind === 'ActionEvent'));
    expect(update?.value).toMatchObject({
      kind: 'Agent',
      llm: { model: 'openai/model-b', api_key: '**********' },
    });
    expect(JSON.stringify(events)).not.toContain(b.key);
    const shown = await info(server, id);
    expect(shown.agent).toMatchObject({ llm: { model: 'openai/model-b', api_key: '**********' } });
    // Both calls are counted under the agent's usage id, A's (under way at the switch) not lost.
    expect((await usageOf(id)).agent?.response_latencies).toMatchObject([
      { model: 'openai/scripted-model' },
      { model: 'openai/model-b' },
    ]);
    // The condenser ran on the agent's model: it moved with it.
    expect(shown.agent).toMatchObject({
      condenser: { llm: { model: 'openai/model-b', usage_id: 'condenser' } },
    });
  });

  it('keeps the switch across a restart, its key sealed at rest', async () => {
    const c = scripted('openai/model-c', finish('done on C'));
    const a = await idleConversation(finish('done on A'));
    expect((await post(`/api/conversations/${a.id}/switch_llm`, { llm: c.llm })).status).toBe(200);
    const dataDir = server.dataDir;
    await server.close();
    server = await startServer({ keys: ['alice-key', 'bob-key'], dataDir });
    expect((await say(a.id, 'go')).status).toBe(200);
    expect(await waitForStatus(server, a.id, ['finished', 'error'])).toBe('finished');
    expect(llm.requestsFor(a.key)).toHaveLength(0);
    expect(llm.requestsFor(c.key)).toHaveLength(1);
    expect(readFileSync(join(dataDir, 'agentd.db')).includes(c.key)).toBe(false);
  });

  it('loses no state change made at the same moment (a policy and a switch, each from the other)', async () => {
    const a = await idleConversation(finish('unused'));
    const b = scripted('openai/model-b', finish('unused'));
    const user = userIdForSessionKey('alice-key');
    await Promise.all([
      server.conversations.setConfirmationPolicy(user, a.id, { kind: 'AlwaysConfirm' }),
      server.conversations.switchLlm(user, a.id, b.llm),
    ]);
    const shown = await info(server, a.id);
    expect(shown.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
    expect(shown.agent).toMatchObject({ llm: { model: 'openai/model-b' } });
  });

  it('refuses a model it cannot route (422), an unknown conversation and one of another user (404)', async () => {
    const a = await idleConversation(finish('unused'));
    const unroutable = await post(`/api/conversations/${a.id}/switch_llm`, {
      llm: { model: 'litellm_proxy/x' },
    });
    expect(unroutable.status).toBe(422);
    expect(((await unroutable.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
      'body',
      'llm',
      'base_url',
    ]);
    expect((await post(`/api/conversations/${a.id}/switch_llm`, {})).status).toBe(422);
    const b = scripted('openai/model-b', finish('unused'));
    expect((await post(`/api/conversations/${randomUUID()}/switch_llm`, { llm: b.llm })).status).toBe(404);
    expect((await post(`/api/conversations/${a.id}/switch_llm`, { llm: b.llm }, 'bob-key')).status).toBe(404);
    expect((await info(server, a.id)).agent).toMatchObject({ llm: { model: 'openai/scripted-model' } });
  });
});

describe('switch_profile', () => {
  it("moves the agent to the caller's saved profile, counted under profile:<name>", async () => {
    const p = scripted('openai/model-p', [...finish('done on P'), ...finish('again on P')]);
    expect((await post('/api/profiles/cheap', { llm: p.llm })).status).toBe(201);
    const a = await idleConversation([{ text: 'first answer, on A' }]);
    expect((await say(a.id, 'one')).status).toBe(200);
    await waitForStatus(server, a.id, ['finished']);
    const missing = await post(`/api/conversations/${a.id}/switch_profile`, { profile_name: 'nope' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Profile 'nope' not found" });
    // Bob has no profile of that name: profiles are per user.
    expect(
      (await post(`/api/conversations/${a.id}/switch_profile`, { profile_name: 'cheap' }, 'bob-key')).status,
    ).toBe(404);
    expect((await post(`/api/conversations/${a.id}/switch_profile`, { profile_name: 'cheap' })).status).toBe(
      200,
    );
    expect((await say(a.id, 'two')).status).toBe(200);
    await waitForStatus(server, a.id, ['finished']);
    expect(llm.requestsFor(p.key)).toHaveLength(1);
    expect((await info(server, a.id)).agent).toMatchObject({
      llm: { model: 'openai/model-p', usage_id: 'profile:cheap', api_key: '**********' },
    });
    const usage = await usageOf(a.id);
    expect(usage.agent?.response_latencies).toHaveLength(1);
    expect(usage['profile:cheap']?.response_latencies).toHaveLength(1);

    // After a restart the spend of the LLM switched from is still counted (and kept in the stats).
    const dataDir = server.dataDir;
    await server.close();
    server = await startServer({ keys: ['alice-key', 'bob-key'], dataDir });
    expect((await say(a.id, 'three')).status).toBe(200);
    await waitForStatus(server, a.id, ['finished']);
    const after = await usageOf(a.id);
    expect(after.agent?.response_latencies).toHaveLength(1);
    expect(after['profile:cheap']?.response_latencies).toHaveLength(2);
  });

  it("answers OpenHands' switch_acp_model with its 400 for its own agent (agentd runs no ACP agents)", async () => {
    const { id } = await startConversation(server, llm, finish('done'), { message: '' });
    const refused = await post(`/api/conversations/${id}/switch_acp_model`, { model: 'claude-opus' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/not an ACP agent/);
    expect((await post(`/api/conversations/${randomUUID()}/switch_acp_model`, { model: 'x' })).status).toBe(
      404,
    );
    expect((await post(`/api/conversations/${id}/switch_acp_model`, { model: 'x' }, 'bob-key')).status).toBe(
      404,
    );
    expect((await post(`/api/conversations/${id}/switch_acp_model`, {})).status).toBe(422);
  });
});
