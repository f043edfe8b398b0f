// Two real agentd processes (dist/cli.js serve) on one PostgreSQL database and one Redis, with the
// scripted LLM: events fan out to every replica, calls reach the replica that runs the conversation,
// an MCP OAuth job is followed through either, and when that replica is killed another one takes the
// conversation over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli } from '../support/cli.js';
import { createTestDatabase, testDatabaseUrl, testRedisUrl } from '../support/engines.js';
import { startOAuthServers } from '../support/oauth-servers.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { connect, type WsClient } from '../support/ws.js';

type ChatAnswer = { choices: { message: { content: string } }[] };

const redisUrl = testRedisUrl();
const databaseUrl = testDatabaseUrl();
const key = 'cluster-test-key';
const LEASE_SECONDS = 2;

type Ev = { id: string; kind: string; code?: string; observation?: { content?: { text?: string }[] } };
type Frame = { seq: number | null; event: Ev };

describe.skipIf(!redisUrl || !databaseUrl)('two replicas on one PostgreSQL and one Redis', () => {
  const llm = new ScriptedLLM();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let a: RunningCli;
  let b: RunningCli;

  const replica = (name: string) =>
    runCli(['serve', '--port', '0', '--data-dir', tempDir(`agentd-replica-${name}-`)], {
      env: {
        OH_SESSION_API_KEYS_0: key,
        OH_SECRET_KEY: 'one secret key for every replica',
        AGENTD_DATABASE_URL: db.url,
        AGENTD_REDIS_URL: redisUrl!,
        AGENTD_LEASE_SECONDS: String(LEASE_SECONDS),
        AGENTD_SANDBOX_PROVIDER: 'process',
        // The agent's shell inherits it: an observation says which replica ran the command.
        REPLICA_NAME: name,
      },
    });
  const call = (server: RunningCli, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { 'X-Session-API-Key': key, 'content-type': 'application/json' },
    });
  const status = async (server: RunningCli, id: string) =>
    ((await (await call(server, `/api/conversations/${id}`)).json()) as { execution_status: string })
      .execution_status;
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 50));
  };
  const startConversation = async (server: RunningCli, llmKey: string) => {
    const response = await call(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: {
          llm: { model: 'openai/scripted', api_key: llmKey, base_url: llm.openaiBaseUrl, num_retries: 0 },
          tools: [{ name: 'terminal' }],
        },
        workspace: { working_dir: tempDir('agentd-replica-ws-') },
      }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const message = (server: RunningCli, id: string, text: string) =>
    call(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text }], run: true }),
    });
  const watch = (server: RunningCli, id: string): Promise<WsClient> =>
    connect(`${server.url.replace('http', 'ws')}/sockets/events/${id}?after_seq=0&session_api_key=${key}`);
  /** The persisted events a watcher got: every seq from 1 on exactly once, in order. */
  const persisted = (client: WsClient) => {
    const frames = (client.frames as Frame[]).filter((f) => f.seq !== null);
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    expect(new Set(frames.map((f) => f.event.id)).size).toBe(frames.length);
    return frames.map((f) => f.event);
  };
  const outputs = (events: Ev[]) =>
    events
      .filter((e) => e.kind === 'ObservationEvent')
      .map((e) => (e.observation?.content ?? []).map((c) => c.text ?? '').join(''));

  beforeAll(async () => {
    await llm.start();
    db = await createTestDatabase();
    a = await replica('A');
    b = await replica('B');
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await llm.stop();
    await db?.drop();
  });

  it('a client on B watches a run on A, and a message sent to B is acted on by A', async () => {
    llm.script('fan-out', [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran-on-$REPLICA_NAME' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'first done' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran-on-$REPLICA_NAME' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'second done' } }] },
    ]);
    const id = await startConversation(a, 'fan-out');
    const watcher = await watch(b, id);
    expect((await message(a, id, 'first')).status).toBe(200);
    await watcher.next(
      (f) => (f as Frame).event?.kind === 'ActionEvent' && JSON.stringify(f).includes('first done'),
    );
    await until(async () => (await status(b, id)) === 'finished');

    // A runs the conversation (its lease): the message sent to B is carried out there.
    expect((await message(b, id, 'second')).status).toBe(200);
    await watcher.next((f) => JSON.stringify(f).includes('second done'));
    await until(async () => (await status(a, id)) === 'finished');
    // What B's watcher gets is the log itself, as A's API reads it: the events after the status
    // change may still be on their way through Redis, so wait for B to have as many, then compare.
    const stored = (await (await call(a, `/api/conversations/${id}/events/search?limit=100`)).json()) as {
      items: Ev[];
    };
    await until(async () => persisted(watcher).length >= stored.items.length);
    const seen = persisted(watcher);
    expect(seen.map((e) => e.id)).toEqual(stored.items.map((e) => e.id));
    const ranOn = outputs(seen).flatMap((o) => o.split('\n').filter((l) => l.startsWith('ran-on-')));
    expect(ranOn).toEqual(['ran-on-A', 'ran-on-A']);
    // A domain error on A comes back through B as A would answer it.
    llm.script('fan-out', [{ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 2' } }] }]);
    expect((await message(b, id, 'third')).status).toBe(200);
    const again = await call(b, `/api/conversations/${id}/run`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: expect.stringMatching(/already running/) });
    // A navigation sent to B: refused while A runs, then HEAD moves on A; an unknown event is A's 404.
    const firstDone = seen.find((e) => e.kind === 'ActionEvent' && JSON.stringify(e).includes('first done'))!;
    const navigate = (eventId: string) =>
      call(b, `/api/conversations/${id}/navigate`, {
        method: 'POST',
        body: JSON.stringify({ event_id: eventId }),
      });
    expect((await navigate(firstDone.id)).status).toBe(409);
    await until(async () => (await status(a, id)) === 'finished');
    const moved = await navigate(firstDone.id);
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ id, leaf_event_id: firstDone.id });
    const unknown = await navigate('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: expect.stringMatching(/Unknown event_id/) });
    watcher.close();
  });

  it('a goal started through B runs on A, which holds the conversation; a child started on B is listed on A', async () => {
    llm.script('goal', [
      { toolCalls: [{ name: 'finish', arguments: { message: 'first done' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran-on-$REPLICA_NAME' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'goal run done' } }] },
      { text: '{"score": 1, "complete": true, "missing": ""}' },
    ]);
    const id = await startConversation(a, 'goal');
    expect((await message(a, id, 'first')).status).toBe(200);
    await until(async () => (await status(a, id)) === 'finished');
    const goal = await call(b, `/api/conversations/${id}/goal`, {
      method: 'POST',
      body: JSON.stringify({ objective: 'Say where you run' }),
    });
    expect(goal.status).toBe(200);
    type Goal = { key?: string; value?: { status?: string; active?: boolean } };
    const goalStatuses = async () =>
      (
        (await (await call(b, `/api/conversations/${id}/events/search?limit=100`)).json()) as {
          items: (Ev & Goal)[];
        }
      ).items.filter((e) => e.key === 'goal');
    await until(async () => (await goalStatuses()).some((e) => e.value?.status === 'complete'));
    const stored = (await (await call(b, `/api/conversations/${id}/events/search?limit=100`)).json()) as {
      items: Ev[];
    };
    expect(outputs(stored.items).join('')).toContain('ran-on-A');

    // A sub-conversation started through B: the parent's info on A lists it (the store is shared).
    const child = await call(b, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: {
          llm: { model: 'openai/scripted', api_key: 'unused', base_url: llm.openaiBaseUrl },
          tools: [],
        },
        workspace: {
          working_dir: (
            (await (await call(a, `/api/conversations/${id}`)).json()) as {
              workspace: { working_dir: string };
            }
          ).workspace.working_dir,
        },
        parent_conversation_id: id,
      }),
    });
    expect(child.status).toBe(201);
    const childId = ((await child.json()) as { id: string }).id;
    const listed = (await (await call(a, `/api/conversations/search?limit=100`)).json()) as {
      items: { id: string; sub_conversation_ids: string[] }[];
    };
    expect(listed.items.find((c) => c.id === id)?.sub_conversation_ids).toEqual([childId]);
  });

  it('an OpenAI completion through B goes on in the conversation A holds: A runs it, B answers when it is done', async () => {
    llm.script('gateway', [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo ran-on-$REPLICA_NAME' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'first answer' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo ran-on-$REPLICA_NAME' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'second answer' } }] },
    ]);
    const saved = await call(b, '/api/profiles/gw', {
      method: 'POST',
      body: JSON.stringify({
        llm: { model: 'openai/scripted', api_key: 'gateway', base_url: llm.openaiBaseUrl, num_retries: 0 },
      }),
    });
    expect(saved.status).toBe(201);
    const complete = (server: RunningCli, text: string, conversation?: string) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(conversation ? { 'X-OpenHands-ServerConversation-ID': conversation } : {}),
        },
        body: JSON.stringify({ model: 'openhands_gw', messages: [{ role: 'user', content: text }] }),
      });
    const first = await complete(a, 'Where do you run?');
    expect(first.status).toBe(200);
    const id = first.headers.get('x-openhands-serverconversation-id')!;
    expect(((await first.json()) as ChatAnswer).choices[0]?.message.content).toBe('first answer');
    // B forwards the message and the wait to A, which holds the conversation (the second run takes 1 s).
    const second = await complete(b, 'And again?', id);
    expect(second.status).toBe(200);
    expect(((await second.json()) as ChatAnswer).choices[0]?.message.content).toBe('second answer');
    const stored = (await (await call(b, `/api/conversations/${id}/events/search?limit=100`)).json()) as {
      items: Ev[];
    };
    const ranOn = outputs(stored.items).flatMap((o) => o.split('\n').filter((l) => l.startsWith('ran-on-')));
    expect(ranOn).toEqual(['ran-on-A', 'ran-on-A']);
  });

  it('a V1 sandbox started through A is seen, paused and deleted through B, its process with it', async () => {
    const started = (await (await call(a, '/api/v1/sandboxes', { method: 'POST' })).json()) as { id: string };
    // At once, while A is still starting it: B waits for A's start in the shared store.
    expect((await call(b, `/api/v1/sandboxes/${started.id}/pause`, { method: 'POST' })).status).toBe(200);
    type Sandbox = { id: string; status: string; exposed_urls: { url: string }[] | null };
    const read = async () =>
      ((await (await call(b, `/api/v1/sandboxes?id=${started.id}`)).json()) as Sandbox[])[0]!;
    expect(await read()).toMatchObject({ id: started.id, status: 'PAUSED' });
    expect((await call(b, `/api/v1/sandboxes/${started.id}/resume`, { method: 'POST' })).status).toBe(200);
    const resumed = await read();
    expect(resumed.status).toBe('RUNNING');
    const agentUrl = resumed.exposed_urls![0]!.url;
    expect((await fetch(`${agentUrl}/alive`)).status).toBe(200);
    expect((await call(b, `/api/v1/sandboxes/${started.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await (await call(a, `/api/v1/sandboxes?id=${started.id}`)).json()).toEqual([null]);
    // The process A started is gone: its agent server no longer answers.
    await expect(fetch(`${agentUrl}/alive`)).rejects.toThrow();
  });

  it('an MCP OAuth job started on A is followed and completed through B: A, which holds it, answers', async () => {
    const oauth = await startOAuthServers();
    const post = (server: RunningCli, path: string, body: unknown) =>
      call(server, path, { method: 'POST', body: JSON.stringify(body) });
    const server = { type: 'http', url: oauth.mcpUrl, auth: { strategy: 'oauth2' } };
    try {
      const started = (await (await post(a, '/api/mcp/oauth/start', { server })).json()) as Record<
        string,
        string
      >;
      expect(started).toMatchObject({ ok: true, authorization_url: expect.any(String) });
      const jobId = started.job_id!;
      const seenOnB = await call(b, `/api/mcp/oauth/status/${jobId}`);
      expect(seenOnB.status).toBe(200);
      expect(await seenOnB.json()).toMatchObject({ status: 'authorizing', callback_ready: true });
      // The browser's trip to the authorization server, which sends it back with a code.
      const back = (await fetch(started.authorization_url!, { redirect: 'manual' })).headers.get('location')!;
      const forged = new URL(back);
      forged.searchParams.set('state', `${jobId}.not-the-secret`);
      const refused = await post(b, `/api/mcp/oauth/callback/${jobId}`, { callback_url: forged.href });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ detail: expect.stringContaining('state') });
      const done = await post(b, `/api/mcp/oauth/callback/${jobId}`, { callback_url: back });
      expect(done.status).toBe(200);
      const status = (await done.json()) as { oauth_state: unknown };
      expect(status).toMatchObject({ ok: true, status: 'succeeded', tools: expect.any(Array) });
      for (const secret of oauth.secrets) expect(JSON.stringify(status)).not.toContain(secret);
      // The state A sealed opens on B (one key for every replica): its tokens need no browser there.
      const tested = await post(b, '/api/mcp/test', {
        server: { ...server, auth: { ...server.auth, state: status.oauth_state } },
      });
      expect(await tested.json()).toMatchObject({ ok: true, tools: expect.any(Array) });
      // A job of no replica, and no job id at all, are B's 404.
      expect((await call(b, `/api/mcp/oauth/status/${'0'.repeat(64)}`)).status).toBe(404);
      expect((await call(b, '/api/mcp/oauth/status/nosuchjob')).status).toBe(404);
    } finally {
      await oauth.close();
    }
  });

  it('kill -9 of the replica running a conversation: the other takes it over, every event exactly once', async () => {
    llm.script('takeover', [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo long-on-$REPLICA_NAME; sleep 60' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'finished on the survivor' } }] },
    ]);
    const id = await startConversation(a, 'takeover');
    const watcher = await watch(b, id);
    expect((await message(a, id, 'run a long command')).status).toBe(200);
    await watcher.next((f) => (f as Frame).event?.kind === 'ActionEvent');
    // A replica starting now recovers at start-up only what no live replica runs: not this one.
    const c = await replica('C');
    expect(await status(c, id)).toBe('running');
    expect(JSON.stringify(watcher.frames)).not.toContain('ServerRestarted');
    await c.stop();
    await a.stop('SIGKILL');
    // Until the lease expires the conversation is A's, and A does not answer: a clear 503.
    const refused = await call(b, `/api/conversations/${id}/run`, { method: 'POST' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      detail: expect.stringMatching(/does not answer; its lease expires/),
    });

    // B notices the lease expired, and recovers the conversation as after a crash.
    const restarted = (await watcher.next(
      (f) => (f as Frame).event?.code === 'ServerRestarted',
      (LEASE_SECONDS + 10) * 1000,
    )) as Frame;
    expect(restarted.seq).not.toBeNull();
    expect(await status(b, id)).toBe('error');
    // `run` continues it on B; the long command is not run again.
    expect((await call(b, `/api/conversations/${id}/run`, { method: 'POST' })).status).toBe(200);
    await watcher.next((f) => JSON.stringify(f).includes('finished on the survivor'));
    await until(async () => (await status(b, id)) === 'finished');
    const seen = persisted(watcher);
    const kinds = seen.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'AgentErrorEvent')).toHaveLength(1);
    expect(outputs(seen).join('\n')).not.toContain('long-on-');
    expect(llm.requestsFor('takeover')).toHaveLength(2);
    const stored = (await (await call(b, `/api/conversations/${id}/events/search?limit=100`)).json()) as {
      items: Ev[];
    };
    expect(seen.map((e) => e.id)).toEqual(stored.items.map((e) => e.id));
    watcher.close();
  });
});
