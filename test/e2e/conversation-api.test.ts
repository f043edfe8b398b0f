import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();
let id: string;
let llmKey: string;

beforeAll(async () => {
  await llm.start();
  server = await startServer();
  ({ id, key: llmKey } = await startConversation(
    server,
    llm,
    [{ text: 'Hello there, general question answered.' }],
    { message: 'A question about zebras' },
  ));
  await waitForStatus(server, id, ['finished']);
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const json = async (path: string, init: RequestInit = {}) => {
  const res = await api(server, path, init);
  return { status: res.status, body: (await res.json()) as unknown };
};

describe('events REST', () => {
  it('gets one event by id, and 404 for an unknown one', async () => {
    const [first] = await allEvents(server, id);
    expect((await json(`/api/conversations/${id}/events/${first!.id}`)).body).toEqual(first);
    const missing = await json(`/api/conversations/${id}/events/${randomUUID()}`);
    expect(missing.status).toBe(404);
  });

  it('filters by kind (short name or OpenHands path), source and body; counts the same', async () => {
    const short = (await json(`/api/conversations/${id}/events/search?kind=MessageEvent`)).body as {
      items: Ev[];
    };
    const long = (
      await json(
        `/api/conversations/${id}/events/search?kind=openhands.sdk.event.llm_convertible.message.MessageEvent`,
      )
    ).body as { items: Ev[] };
    expect(short.items.map((e) => e.id)).toEqual(long.items.map((e) => e.id));
    expect(short.items).toHaveLength(2);
    expect(
      (
        (await json(`/api/conversations/${id}/events/search?source=agent&kind=MessageEvent`)).body as {
          items: Ev[];
        }
      ).items,
    ).toHaveLength(1);
    expect(
      ((await json(`/api/conversations/${id}/events/search?body=ZEBRAS`)).body as { items: Ev[] }).items,
    ).toHaveLength(1);
    expect((await json(`/api/conversations/${id}/events/count?kind=MessageEvent`)).body).toBe(2);
    expect((await json(`/api/conversations/${id}/events/count?kind=NoSuchKind`)).body).toBe(0);
  });

  it('pages newest first and refuses an unknown cursor with 400', async () => {
    const all = await allEvents(server, id);
    const desc = (await json(`/api/conversations/${id}/events/search?sort_order=TIMESTAMP_DESC&limit=2`))
      .body as { items: Ev[]; next_page_id: string };
    expect(desc.items.map((e) => e.id)).toEqual(
      all
        .slice(-2)
        .reverse()
        .map((e) => e.id),
    );
    expect(desc.next_page_id).toBe(all[all.length - 3]!.id);
    const bad = await json(`/api/conversations/${id}/events/search?page_id=not-an-event`);
    expect(bad.status).toBe(400);
    expect((await json(`/api/conversations/${id}/events/search?limit=0`)).status).toBe(422);
    expect((await json(`/api/conversations/${id}/events/search?limit=101`)).status).toBe(422);
  });

  it('filters by timestamps, with or without an offset', async () => {
    const all = await allEvents(server, id);
    const middle = all[2]!.timestamp as string;
    const since = (await json(`/api/conversations/${id}/events/count?timestamp__gte=${middle}`)).body;
    expect(since).toBe(all.length - 2);
    const withOffset = (
      await json(
        `/api/conversations/${id}/events/count?timestamp__gte=${encodeURIComponent(`${middle}+00:00`)}`,
      )
    ).body;
    expect(withOffset).toBe(since);
    expect((await json(`/api/conversations/${id}/events/count?timestamp__lt=garbage`)).status).toBe(422);
  });

  it('404s every event route of an unknown conversation', async () => {
    const other = randomUUID();
    expect((await json(`/api/conversations/${other}/events/search`)).status).toBe(404);
    expect((await json(`/api/conversations/${other}/events/count`)).status).toBe(404);
  });
});

describe('conversations REST', () => {
  it('searches, counts and batch-gets, with hex page ids', async () => {
    const second = await startConversation(server, llm, [], { message: '' });
    const page = (await json('/api/conversations/search?limit=1')).body as {
      items: { id: string }[];
      next_page_id: string;
    };
    expect(page.items[0]!.id).toBe(second.id);
    expect(page.next_page_id).toBe(id.replaceAll('-', ''));
    const next = (await json(`/api/conversations/search?limit=1&page_id=${page.next_page_id}`)).body as {
      items: { id: string }[];
    };
    expect(next.items[0]!.id).toBe(id);
    expect((await json('/api/conversations/count')).body).toBe(2);
    expect((await json('/api/conversations/count?status=finished')).body).toBe(1);
    const batch = (await json(`/api/conversations?ids=${id}&ids=${randomUUID()}`)).body as ({
      id: string;
    } | null)[];
    expect(batch.map((c) => c?.id ?? null)).toEqual([id, null]);
    // Without ids the path is OpenHands' legacy page (test/server/legacy-conversations.test.ts);
    // a malformed id is still a 422.
    expect((await json('/api/conversations?ids=not-a-uuid')).status).toBe(422);
  });

  it('answers 200 with the existing conversation when started again with its id', async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        conversation_id: id,
        agent: { llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl } },
        workspace: { working_dir: '/tmp' },
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(id);
  });

  it("answers the SDK's load_plugin with a 400 when the conversation registers no marketplace", async () => {
    const plugin = { method: 'POST', body: JSON.stringify({ plugin_ref: 'github:owner/plugin' }) };
    const refused = await json(`/api/conversations/${id}/load_plugin`, plugin);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      detail: expect.stringContaining('No marketplaces are registered'),
    });
    expect((await json(`/api/conversations/${randomUUID()}/load_plugin`, plugin)).status).toBe(404);
  });

  it('updates title and tags, and answers {success:false} for an unknown one', async () => {
    expect(
      (
        await json(`/api/conversations/${id}`, {
          method: 'PATCH',
          body: JSON.stringify({ title: '  Zebras  ', tags: { topic: 'animals' } }),
        })
      ).body,
    ).toEqual({
      success: true,
    });
    const info = (await json(`/api/conversations/${id}`)).body as {
      title: string;
      tags: Record<string, string>;
    };
    expect(info).toMatchObject({ title: 'Zebras', tags: { topic: 'animals' } });
    // OpenHands answers 200 {success:false} here; agentd says 404 like every conversation route.
    expect(
      (
        await json(`/api/conversations/${randomUUID()}`, {
          method: 'PATCH',
          body: JSON.stringify({ title: 'x' }),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await json(`/api/conversations/${id}`, {
          method: 'PATCH',
          body: JSON.stringify({ tags: { 'Bad Key': 'x' } }),
        })
      ).status,
    ).toBe(422);
  });

  it('sets the confirmation policy (a state event) and secrets (masked, encrypted at rest)', async () => {
    await json(`/api/conversations/${id}/confirmation_policy`, {
      method: 'POST',
      body: JSON.stringify({ policy: { kind: 'AlwaysConfirm' } }),
    });
    await json(`/api/conversations/${id}/secrets`, {
      method: 'POST',
      body: JSON.stringify({ secrets: { GITHUB_TOKEN: 'ghp_PLAINTEXT_TOKEN_123' } }),
    });
    const info = (await json(`/api/conversations/${id}`)).body as Record<string, unknown>;
    expect(info.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
    expect(JSON.stringify(info)).not.toContain('ghp_PLAINTEXT_TOKEN_123');
    expect(info.secret_registry).toEqual({
      secret_sources: { GITHUB_TOKEN: { kind: 'StaticSecret', value: '**********' } },
    });
    const events = await allEvents(server, id);
    expect(events.some((e) => e.key === 'confirmation_policy')).toBe(true);
    const db =
      readFileSync(join(server.dataDir, 'agentd.db-wal')).toString('latin1') +
      readFileSync(join(server.dataDir, 'agentd.db')).toString('latin1');
    expect(db).not.toContain('ghp_PLAINTEXT_TOKEN_123');
    expect(db).not.toContain(llmKey);
  });

  it('answers ask_agent from the LLM without adding events', async () => {
    const { id: asked, key } = await startConversation(
      server,
      llm,
      [{ text: 'first reply' }, { text: 'It was about zebras.' }],
      { message: 'zebras' },
    );
    await waitForStatus(server, asked, ['finished']);
    const before = (await allEvents(server, asked)).length;
    const answer = await json(`/api/conversations/${asked}/ask_agent`, {
      method: 'POST',
      body: JSON.stringify({ question: 'What was it about?' }),
    });
    expect(answer.body).toEqual({ response: 'It was about zebras.' });
    expect((await allEvents(server, asked)).length).toBe(before);
    expect(llm.requestsFor(key)).toHaveLength(2);
    expect(
      (
        await json(`/api/conversations/${randomUUID()}/ask_agent`, {
          method: 'POST',
          body: JSON.stringify({ question: 'x' }),
        })
      ).status,
    ).toBe(404);
  });

  it('deletes a conversation and its events; an unknown one is 404 (OpenHands: 400)', async () => {
    const { id: doomed } = await startConversation(server, llm, [{ text: 'bye' }]);
    await waitForStatus(server, doomed, ['finished']);
    expect((await json(`/api/conversations/${doomed}`, { method: 'DELETE' })).body).toEqual({
      success: true,
    });
    expect((await json(`/api/conversations/${doomed}`)).status).toBe(404);
    expect((await json(`/api/conversations/${doomed}`, { method: 'DELETE' })).status).toBe(404);
    expect((await json(`/api/conversations/${randomUUID()}/pause`, { method: 'POST' })).status).toBe(404);
    expect((await json(`/api/conversations/${randomUUID()}/interrupt`, { method: 'POST' })).status).toBe(404);
    expect((await json(`/api/conversations/${randomUUID()}/run`, { method: 'POST' })).status).toBe(404);
  });

  it('lists the registered tools', async () => {
    expect((await json('/api/tools/')).body).toEqual(
      expect.arrayContaining(['terminal', 'file_editor', 'task_tracker', 'finish', 'think']),
    );
  });

  it('refuses a start request with bad members in FastAPI shape', async () => {
    const res = await json('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ workspace: {}, max_iterations: 0 }),
    });
    expect(res.status).toBe(422);
    const locs = (res.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
    expect(locs).toContainEqual(['body', 'workspace', 'working_dir']);
    expect(locs).toContainEqual(['body', 'max_iterations']);
    const unknownTool = await json('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { llm: { model: 'openai/x' }, tools: [{ name: 'warp_drive' }] },
        workspace: { working_dir: '/tmp' },
      }),
    });
    expect(unknownTool.status).toBe(422);
  });

  it("refuses a start that asks for client-side tools, which agentd has not, and stores nothing; the SDK's null and [] pass", async () => {
    const before = await server.store.conversations.count({});
    for (const [member, value] of [
      ['client_tools', [{ name: 'pick_color', description: 'Asks the user for a color' }]],
    ] as const) {
      const res = await json('/api/conversations', {
        method: 'POST',
        body: JSON.stringify({
          agent: { llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl }, tools: [] },
          workspace: { working_dir: '/tmp' },
          [member]: value,
        }),
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          expect.objectContaining({ loc: ['body', member], msg: expect.stringMatching(/^agentd .* no /) }),
        ],
      });
    }
    expect(await server.store.conversations.count({})).toBe(before);
    const sdkDefaults = await startConversation(server, llm, [], {
      message: '',
      extra: { plugins: null, client_tools: [], tool_module_qualnames: {}, agent_definitions: [] },
    });
    expect((await json(`/api/conversations/${sdkDefaults.id}`)).status).toBe(200);
  });

  it("sends the LLM's extra_headers with each call, stored encrypted and shown masked", async () => {
    const { id, key } = await startConversation(server, llm, [{ text: 'hi' }], {
      llm: { extra_headers: { 'x-proxy-token': 'proxy-secret' } },
    });
    await waitForStatus(server, id, ['finished']);
    expect(llm.requestsFor(key)[0]!.headers['x-proxy-token']).toBe('proxy-secret');
    const info = (await json(`/api/conversations/${id}`)).body as { agent: { llm: Record<string, unknown> } };
    expect(info.agent.llm).toMatchObject({
      api_key: '**********',
      extra_headers: { 'x-proxy-token': '**********' },
    });
    expect(JSON.stringify(await server.store.conversations.get(id))).not.toContain('proxy-secret');
  });

  it("sends the SDK LLM's seed to the provider and keeps it with the conversation", async () => {
    const { id, key } = await startConversation(server, llm, [{ text: 'hi' }], {
      llm: { seed: 1234, top_k: 20 },
    });
    await waitForStatus(server, id, ['finished']);
    const sent = llm.requestsFor(key)[0]!.body;
    expect(sent.seed).toBe(1234);
    expect(sent).not.toHaveProperty('top_k'); // an OpenAI model: Anthropic's alone
    const info = (await json(`/api/conversations/${id}`)).body as { agent: { llm: Record<string, unknown> } };
    expect(info.agent.llm).toMatchObject({ seed: 1234, top_k: 20 });
  });

  it('still runs a conversation stored before extra headers were sealed (kept in clear then)', async () => {
    const { id, key } = await startConversation(server, llm, [{ text: 'hi' }], { message: '' });
    const record = (await server.store.conversations.get(id))!;
    const state = record.state as { agent: { llm: Record<string, unknown> } };
    state.agent.llm.extra_headers = { 'x-proxy-token': 'stored-in-clear' };
    await server.store.conversations.update(id, { state: record.state });
    const sent = await json(`/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'go' }], run: true }),
    });
    expect(sent.status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    expect(llm.requestsFor(key)[0]!.headers['x-proxy-token']).toBe('stored-in-clear');
  });

  it("uses the SDK's inline system_prompt verbatim, the dynamic context after it", async () => {
    const { id, key } = await startConversation(server, llm, [{ text: 'arr' }], {
      agent: { system_prompt: 'You are a careful pirate.' },
    });
    await waitForStatus(server, id, ['finished']);
    const [system] = llm.requestsFor(key)[0]!.body.messages as { role: string; content: string }[];
    expect(system!.role).toBe('system');
    expect(system!.content.startsWith('You are a careful pirate.')).toBe(true);
    expect(system!.content).toContain('Working directory:');
    expect(system!.content).not.toContain('autonomous software engineering agent');
    const prompt = (await allEvents(server, id))[0] as Ev & { system_prompt: { text: string } };
    expect(prompt.system_prompt.text).toBe('You are a careful pirate.');
  });
});
