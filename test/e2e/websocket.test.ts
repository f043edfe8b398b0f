import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

type Frame = {
  kind?: string;
  key?: string;
  value?: unknown;
  seq?: number | null;
  event?: Frame;
  id?: string;
  code?: string;
};

/** An agent whose LLM is never called in these tests (messages are sent with run: false). */
const agent = {
  kind: 'Agent',
  llm: {
    model: 'openai/never-called',
    api_key: 'sk-unused',
    base_url: 'http://127.0.0.1:9/v1',
    num_retries: 0,
  },
};

describe('WebSocket /sockets/events/{id}', () => {
  let server: TestServer;
  let conversationId: string;

  const say = (text: string) =>
    api(server, `/api/conversations/${conversationId}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text }], run: false }),
    });
  const path = (query = '') => `/sockets/events/${conversationId}${query ? `?${query}` : ''}`;

  beforeAll(async () => {
    server = await startServer({ keys: ['ws-key'] });
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent, workspace: { working_dir: tempDir() } }),
    });
    expect(res.status).toBe(201);
    conversationId = ((await res.json()) as { id: string }).id;
    await say('one');
    await say('two');
  });
  afterAll(() => server.close({ remove: true }));

  it('authenticates with a first auth frame and sends full_state first', async () => {
    const client = await connect(wsUrl(server.url, path()));
    client.send({ type: 'auth', session_api_key: 'ws-key' });
    const first = (await client.next()) as Frame;
    expect(first).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'full_state' });
    expect((first.value as { execution_status: string }).execution_status).toBe('idle');
    client.close();
  });

  it('authenticates with the query parameter or the headers, as every route reads them', async () => {
    for (const [query, headers] of [
      ['session_api_key=ws-key', {}],
      ['', { 'X-Session-API-Key': 'ws-key' }],
      ['', { Authorization: 'Bearer ws-key' }],
      // A sandbox's key in the header and the user's as the token, as OpenHands Cloud's clients send.
      ['', { 'X-Session-API-Key': 'not-a-key', Authorization: 'Bearer ws-key' }],
    ] as const) {
      const client = await connect(wsUrl(server.url, path(query)), headers);
      expect(((await client.next()) as Frame).key).toBe('full_state');
      client.close();
    }
    const wrong = await connect(wsUrl(server.url, path()), { Authorization: 'Bearer not-a-key' });
    expect((await wrong.closed).code).toBe(4001);
  });

  it('closes with 4001 for a wrong key, a bad first frame, or no auth in time', async () => {
    const wrong = await connect(wsUrl(server.url, path('session_api_key=nope')));
    expect((await wrong.closed).code).toBe(4001);
    const bad = await connect(wsUrl(server.url, path()));
    bad.send({ type: 'hello' });
    expect((await bad.closed).code).toBe(4001);
    const garbage = await connect(wsUrl(server.url, path()));
    garbage.send('not json');
    expect((await garbage.closed).code).toBe(4001);
  });

  it('closes with 4004 for an unknown conversation', async () => {
    const client = await connect(wsUrl(server.url, `/sockets/events/${randomUUID()}?session_api_key=ws-key`));
    expect((await client.closed).code).toBe(4004);
  });

  it('resends all persisted events with resend_mode=all (and legacy resend_all=true)', async () => {
    const stored = (await (
      await api(server, `/api/conversations/${conversationId}/events/search`)
    ).json()) as { items: Frame[] };
    for (const query of ['resend_mode=all', 'resend_all=true']) {
      const client = await connect(wsUrl(server.url, path(`session_api_key=ws-key&${query}`)));
      const last = stored.items[stored.items.length - 1]!;
      await client.next((f) => (f as Frame).id === last.id);
      const replayed = client.frames.slice(1) as Frame[];
      expect(replayed.map((f) => f.id)).toEqual(stored.items.map((e) => e.id));
      client.close();
    }
  });

  it('replays exactly the events after after_seq in seq envelopes, then continues live without gap or duplicate', async () => {
    const total = (await (
      await api(server, `/api/conversations/${conversationId}/events/count`)
    ).json()) as number;
    const client = await connect(wsUrl(server.url, path('session_api_key=ws-key&after_seq=2')));
    const first = (await client.next()) as Frame;
    expect(first.seq).toBeNull();
    expect(first.event?.key).toBe('full_state');
    await client.next((f) => (f as Frame).seq === total);
    await say('three');
    await client.next(
      (f) =>
        ((f as Frame).event as { llm_message?: { content: { text: string }[] } })?.llm_message?.content[0]
          ?.text === 'three',
    );
    const seqs = (client.frames as Frame[]).map((f) => f.seq).filter((s): s is number => s !== null);
    expect(seqs[0]).toBe(3);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 3));
    client.close();
  });

  it('answers a bad client frame with a ServerErrorEvent and keeps the socket open', async () => {
    const client = await connect(wsUrl(server.url, path('session_api_key=ws-key')));
    await client.next();
    client.send({ content: 'no role' });
    const error = (await client.next((f) => (f as Frame).kind === 'ServerErrorEvent')) as Frame;
    expect(error.code).toBeTruthy();
    client.send({ type: 'auth', session_api_key: 'ws-key' }); // redundant auth frames are ignored
    client.send('{broken');
    await client.next(
      (f) => (f as Frame).kind === 'ServerErrorEvent' && (f as Frame).code === 'JSONDecodeError',
    );
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    client.close();
  });

  it('appends a user message sent as a frame', async () => {
    const client = await connect(wsUrl(server.url, path('session_api_key=ws-key')));
    await client.next();
    client.send({ role: 'user', content: 'hello from the socket' });
    const message = (await client.next((f) => (f as Frame).kind === 'MessageEvent')) as {
      llm_message: { content: { text: string }[] };
    };
    expect(message.llm_message.content[0]?.text).toBe('hello from the socket');
    client.close();
  });
});
