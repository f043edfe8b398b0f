// OpenHands' parent link: a start with `parent_conversation_id` makes a sub-conversation; the child's
// info names its parent and the parent's lists its children (`sub_conversation_ids`), in every read
// (get, batch get, search, the web UI's list), across a restart. A parent must be the caller's, not
// the conversation itself, and work in the same folder (422 otherwise, nothing stored); deleting the
// parent leaves the children naming it, deleting a child takes it off the parent's list.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { info, serverAndLlm } from '../support/conversation.js';
import { api, startServer, tempDir } from '../support/server.js';

const env = serverAndLlm({ keys: ['user-a', 'user-b'] });

async function start(
  workingDir: string,
  extra: Record<string, unknown> = {},
  key = 'user-a',
): Promise<Response> {
  const body = {
    agent: { kind: 'Agent', llm: { model: 'openai/scripted-model', api_key: 'sk-unused' }, tools: [] },
    workspace: { working_dir: workingDir },
    ...extra,
  };
  return api(env.server, '/api/conversations', { method: 'POST', body: JSON.stringify(body), key });
}

async function started(workingDir: string, parent?: string): Promise<Record<string, unknown>> {
  const res = await start(workingDir, parent ? { parent_conversation_id: parent } : {});
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

const hex = (id: unknown) => (id as string).replaceAll('-', '');
const json = async (path: string) => (await (await api(env.server, path)).json()) as Record<string, unknown>;

describe('sub-conversations (parent_conversation_id)', () => {
  it('links a child to its parent in every read of either', async () => {
    const folder = tempDir('agentd-ws-');
    const parent = await started(folder);
    expect(parent).toMatchObject({ parent_conversation_id: null, sub_conversation_ids: [] });
    const a = await started(folder, parent.id as string);
    expect(a).toMatchObject({ parent_conversation_id: parent.id, sub_conversation_ids: [] });
    const b = await started(folder, parent.id as string);

    // GET of one conversation answers both shapes: the web UI's ids are undashed.
    expect((await info(env.server, parent.id as string)).sub_conversation_ids).toEqual([
      hex(a.id),
      hex(b.id),
    ]);
    expect((await info(env.server, a.id as string)).parent_conversation_id).toBe(parent.id);
    const batch = (await (
      await api(env.server, `/api/conversations?ids=${parent.id}&ids=${a.id}`)
    ).json()) as Record<string, unknown>[];
    expect(batch.map((c) => c.sub_conversation_ids)).toEqual([[a.id, b.id], []]);
    const page = (await json('/api/conversations/search?limit=100')) as { items: Record<string, unknown>[] };
    const byId = new Map(page.items.map((c) => [c.id, c]));
    expect(byId.get(parent.id)?.sub_conversation_ids).toEqual([a.id, b.id]);
    expect(byId.get(b.id)?.parent_conversation_id).toBe(parent.id);
    // The web UI's list leaves sub-conversations out unless asked, as OpenHands'.
    const list = async (query: string) =>
      ((await json(`/api/conversations?limit=100${query}`)) as { results: Record<string, unknown>[] })
        .results;
    const listed = await list('');
    expect(listed.map((c) => c.conversation_id)).toContain(hex(parent.id));
    expect(listed.map((c) => c.conversation_id)).not.toContain(hex(a.id));
    expect(listed.find((c) => c.conversation_id === hex(parent.id))?.sub_conversation_ids).toEqual([
      hex(a.id),
      hex(b.id),
    ]);
    expect((await list('&include_sub_conversations=true')).map((c) => c.conversation_id)).toContain(
      hex(a.id),
    );

    // A child's delete takes it off the list; the parent's delete leaves the other child naming it.
    expect((await api(env.server, `/api/conversations/${a.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await info(env.server, parent.id as string)).sub_conversation_ids).toEqual([hex(b.id)]);
    expect((await api(env.server, `/api/conversations/${parent.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await info(env.server, b.id as string)).parent_conversation_id).toBe(parent.id);
  });

  it('refuses a parent that is unknown, itself, in another folder or another user’s; nothing is stored', async () => {
    const folder = tempDir('agentd-ws-');
    const parent = await started(folder);
    const count = async (key: string) =>
      (await (await api(env.server, '/api/conversations/count', { key })).json()) as number;
    const before = await count('user-a');
    const refusal = async (res: Response, words: string) => {
      expect(res.status).toBe(422);
      const { detail } = (await res.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(detail[0]).toMatchObject({ loc: ['body', 'parent_conversation_id'] });
      expect(detail[0]?.msg).toContain(words);
    };
    const unknown = crypto.randomUUID();
    await refusal(await start(folder, { parent_conversation_id: unknown }), `${unknown} not found`);
    const self = crypto.randomUUID();
    await refusal(
      await start(folder, { parent_conversation_id: self, conversation_id: self }),
      'cannot be its own parent',
    );
    await refusal(
      await start(tempDir('agentd-ws-'), { parent_conversation_id: parent.id }),
      'belongs to a different workspace',
    );
    await refusal(
      await start(folder, { parent_conversation_id: parent.id }, 'user-b'),
      `${parent.id} not found`,
    );
    expect(await count('user-a')).toBe(before);
    expect(await count('user-b')).toBe(0);
    expect((await info(env.server, parent.id as string)).sub_conversation_ids).toEqual([]);
    expect((await start(folder, { parent_conversation_id: 'not-a-uuid' })).status).toBe(422);

    // The same folder reached through a link is the same workspace.
    const link = join(tempDir('agentd-link-'), 'ws');
    symlinkSync(folder, link);
    const child = await started(link, parent.id as string);
    expect(child.parent_conversation_id).toBe(parent.id);
  });

  it('keeps the link across a restart', async () => {
    const dataDir = tempDir();
    const first = await startServer({ dataDir });
    const folder = tempDir('agentd-ws-');
    const body = (parent?: string) =>
      JSON.stringify({
        agent: { kind: 'Agent', llm: { model: 'openai/scripted-model', api_key: 'sk-unused' }, tools: [] },
        workspace: { working_dir: folder },
        ...(parent ? { parent_conversation_id: parent } : {}),
      });
    const post = async (server: typeof first, parent?: string) =>
      (await (await api(server, '/api/conversations', { method: 'POST', body: body(parent) })).json()) as {
        id: string;
      };
    const parent = await post(first);
    const child = await post(first, parent.id);
    await first.close();
    const second = await startServer({ dataDir });
    try {
      expect((await info(second, parent.id)).sub_conversation_ids).toEqual([hex(child.id)]);
      expect((await info(second, child.id)).parent_conversation_id).toBe(parent.id);
    } finally {
      await second.close({ remove: true });
    }
  });
});
