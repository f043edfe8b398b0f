// "One port, both shapes" (issue #11): GET /api/conversations/{id} answers the agent-server
// ConversationInfo and OpenHands' legacy members in one object, GET /api/conversations without ids
// is the legacy page, PATCH {title} renames, GET .../config answers {runtime_id, session_id}.
// The legacy members checked are those frontend/src/api/open-hands.types.ts `Conversation` declares
// and frontend/src/api/conversation-service/conversation-service.api.ts reads (url, session_api_key).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { getJson, type Json, postJson, useScriptedLLM, waitForTask } from '../support/v1.js';

const llm = new ScriptedLLM();
let server: TestServer;
let localId: string;
let app: Json; // the V1 app conversation (GET /api/v1/app-conversations)

const hex = (id: string) => id.replaceAll('-', '');

beforeAll(async () => {
  await llm.start();
  server = await startServer({
    controlPlane: { maxSandboxes: 2, warmSpare: false, sandboxProvider: 'process' },
  });
  ({ id: localId } = await startConversation(server, llm, [{ text: 'Local answer.' }], {
    message: 'A local question',
  }));
  await waitForStatus(server, localId, ['finished']);
  await useScriptedLLM(server, llm, [{ toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] }]);
  const task = await postJson(server, '/api/v1/app-conversations', {
    initial_message: { content: [{ type: 'text', text: 'A sandboxed question' }] },
  });
  const ready = await waitForTask(server, task.id as string);
  expect(ready.status).toBe('READY');
  [app] = (await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${ready.app_conversation_id}`)) as [
    Json,
  ];
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

describe('GET /api/conversations/{id} in both shapes', () => {
  it('a local conversation: agent-server members, and a relative url with no key', async () => {
    const info = await getJson(server, `/api/conversations/${localId}`);
    // Agent-server ConversationInfo members (the SDK's RemoteConversation reads these).
    expect(info).toMatchObject({ id: localId, execution_status: 'finished', agent: expect.any(Object) });
    expect(info).toMatchObject({
      conversation_id: hex(localId),
      title: expect.any(String),
      status: 'RUNNING',
      runtime_status: 'STATUS$READY',
      url: `/api/conversations/${hex(localId)}`,
      session_api_key: null,
      conversation_version: 'V1',
      selected_repository: null,
      last_updated_at: info.updated_at,
      created_at: expect.any(String),
      pr_number: [],
    });
    // The same object by its hex id (the UI's conversation_id).
    expect((await getJson(server, `/api/conversations/${hex(localId)}`)).id).toBe(localId);
  });

  it("a V1 app conversation: the sandbox's conversation_url and session key, as /api/v1/app-conversations", async () => {
    expect(app.conversation_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/conversations\/[0-9a-f]{32}$/);
    const info = await getJson(server, `/api/conversations/${app.id}`);
    expect(info).toMatchObject({
      conversation_id: app.id,
      url: app.conversation_url,
      session_api_key: app.session_api_key,
      status: 'RUNNING',
      runtime_status: 'STATUS$READY',
      conversation_version: 'V1',
      sub_conversation_ids: [],
    });
    expect(typeof info.session_api_key).toBe('string');
    expect(typeof info.title).toBe('string');
    // The UI then calls the sandbox with that key; the agent server there knows the conversation.
    const there = await fetch(info.url as string, {
      headers: { 'X-Session-API-Key': info.session_api_key as string },
    });
    expect(there.status).toBe(200);
    expect(((await there.json()) as Json).id).toBe(info.id);
  });

  it('404 for an unknown conversation', async () => {
    expect((await api(server, `/api/conversations/${randomUUID()}`)).status).toBe(404);
  });
});

describe('GET /api/conversations: ids → batch get, otherwise the legacy page', () => {
  it('keeps the batch get', async () => {
    const batch = await getJson<unknown[]>(server, `/api/conversations?ids=${localId}&ids=${randomUUID()}`);
    expect(batch).toHaveLength(2);
    expect((batch[0] as Json).id).toBe(localId);
    expect(batch[1]).toBeNull();
  });

  it('pages {results, next_page_id} newest first with limit and page_id', async () => {
    const first = await getJson<{ results: Json[]; next_page_id: string | null }>(
      server,
      '/api/conversations?limit=1',
    );
    expect(first.results.map((c) => c.conversation_id)).toEqual([app.id]);
    expect(first.results[0]).toMatchObject({
      url: app.conversation_url,
      session_api_key: app.session_api_key,
    });
    expect(first.next_page_id).toEqual(expect.any(String));
    const second = await getJson<{ results: Json[]; next_page_id: string | null }>(
      server,
      `/api/conversations?limit=1&page_id=${first.next_page_id}`,
    );
    expect(second.results.map((c) => c.conversation_id)).toEqual([hex(localId)]);
    expect(second.results[0]).toMatchObject({ session_api_key: null, status: 'RUNNING' });
    const all = await getJson<{ results: Json[] }>(server, '/api/conversations');
    expect(all.results.length).toBeGreaterThanOrEqual(2);
  });

  it('answers 422 for a bad limit and 400 for an unknown page_id', async () => {
    expect((await api(server, '/api/conversations?limit=0')).status).toBe(422);
    expect((await api(server, '/api/conversations?page_id=nope')).status).toBe(400);
  });
});

describe('PATCH {title} and GET .../config', () => {
  it('renames a local and a V1 conversation; the list shows the new titles', async () => {
    for (const id of [localId, app.id as string]) {
      const res = await api(server, `/api/conversations/${id}`, {
        method: 'PATCH',
        body: JSON.stringify({ title: `Renamed ${id}` }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true });
      expect((await getJson(server, `/api/conversations/${id}`)).title).toBe(`Renamed ${id}`);
    }
    expect(await getJson(server, `/api/v1/app-conversations?ids=${app.id}`)).toMatchObject([
      { title: `Renamed ${app.id}` },
    ]);
  });

  it('config: the sandbox id for a V1 conversation, null for a local one; session_id is the path id', async () => {
    expect(await getJson(server, `/api/conversations/${app.id}/config`)).toEqual({
      runtime_id: app.sandbox_id,
      session_id: app.id,
    });
    expect(await getJson(server, `/api/conversations/${localId}/config`)).toEqual({
      runtime_id: null,
      session_id: localId,
    });
    expect((await api(server, `/api/conversations/${randomUUID()}/config`)).status).toBe(404);
  });
});

describe('sub-conversations', () => {
  it('are left out of the legacy page unless include_sub_conversations=true (as OpenHands)', async () => {
    await useScriptedLLM(server, llm, [{ toolCalls: [{ name: 'finish', arguments: { message: 'sub' } }] }]);
    const task = await postJson(server, '/api/v1/app-conversations', {
      parent_conversation_id: app.id,
      initial_message: { content: [{ type: 'text', text: 'A sub-task' }] },
    });
    const sub = (await waitForTask(server, task.id as string)).app_conversation_id as string;
    const ids = async (query: string) =>
      (await getJson<{ results: Json[] }>(server, `/api/conversations?${query}`)).results.map(
        (c) => c.conversation_id,
      );
    expect(await ids('limit=100')).not.toContain(sub);
    expect(await ids('limit=100&include_sub_conversations=true')).toContain(sub);
    expect((await getJson(server, `/api/conversations/${app.id}`)).sub_conversation_ids).toEqual([sub]);
  });
});
