import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { getWithBody } from '../support/http.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { createConversation, messageEvent, pauseEvent } from './fixtures.js';

describe('GET /api/conversations/{id}/events (batch get)', () => {
  let server: TestServer;
  let conversationId: string;
  const events = [messageEvent('hello'), pauseEvent(), messageEvent('world', 'agent')];

  beforeAll(async () => {
    server = await startServer();
    conversationId = await createConversation(server.store, userIdForSessionKey(server.key));
    await server.store.events.append(conversationId, events);
  });
  afterAll(() => server.close({ remove: true }));

  const batch = async (ids: unknown, path = `/api/conversations/${conversationId}/events`) => {
    const res = await getWithBody(
      `${server.url}${path}`,
      typeof ids === 'string' ? ids : JSON.stringify(ids),
      {
        'X-Session-API-Key': server.key,
      },
    );
    return { status: res.status, json: async () => res.json(), text: async () => res.text };
  };

  it('answers one item per requested id, in order, null where missing', async () => {
    const missing = randomUUID();
    const res = await batch([events[2]!.id, missing, events[0]!.id, events[0]!.id]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([events[2], null, events[0], events[0]]);
  });

  it('accepts repeated event_ids query parameters', async () => {
    const qs = `event_ids=${events[1]!.id}&event_ids=nope`;
    const res = await api(server, `/api/conversations/${conversationId}/events?${qs}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([events[1], null]);
  });

  it('accepts the conversation id as 32 hex digits', async () => {
    const res = await batch(
      [events[0]!.id],
      `/api/conversations/${conversationId.replaceAll('-', '')}/events`,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([events[0]]);
  });

  it('answers an empty list with an empty array', async () => {
    const res = await batch([]);
    expect(await res.json()).toEqual([]);
  });

  it('is 404 with a detail for an unknown conversation', async () => {
    const other = randomUUID();
    const res = await batch([events[0]!.id], `/api/conversations/${other}/events`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: `Conversation not found: ${other}` });
  });

  it("is 404 for another user's conversation", async () => {
    const foreign = await createConversation(server.store, 'someone-else');
    const res = await batch([], `/api/conversations/${foreign}/events`);
    expect(res.status).toBe(404);
  });

  it("is 404 for another user's conversation even when the body names its events", async () => {
    const foreign = await createConversation(server.store, 'someone-else');
    const theirs = messageEvent('not yours');
    await server.store.events.append(foreign, [theirs]);
    const res = await batch([theirs.id], `/api/conversations/${foreign}/events`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('not yours');
  });

  it('reads a body that arrives after the headers, in pieces', async () => {
    const body = JSON.stringify([events[1]!.id, events[0]!.id]);
    const half = body.length >> 1;
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      socket.once('end', () => resolve(text));
    });
    socket.write(
      `GET /api/conversations/${conversationId}/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
        `X-Session-API-Key: ${server.key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // the route is waiting on the rest
    socket.write(body.slice(half));
    const text = await answer;
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual([events[1], events[0]]);
  });

  it('reads ids written with escapes and white space, and ids that name prototype keys', async () => {
    const id = events[0]!.id;
    const escaped = `\\u${id.charCodeAt(0).toString(16).padStart(4, '0')}${id.slice(1)}`;
    const res = await batch(` [ "${escaped}" ,\n "__proto__", "constructor" ] `);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([events[0], null, null]);
  });

  it('is 422 json_too_deep for a body nested past the limit', async () => {
    const res = await batch(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { type: string }[] }).detail[0]?.type).toBe('json_too_deep');
  });

  it('is 422 in FastAPI shape for a non-UUID path', async () => {
    const res = await batch([], '/api/conversations/not-a-uuid/events');
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail[0]?.loc).toEqual(['path', 'conversation_id']);
    expect(typeof body.detail[0]?.msg).toBe('string');
    expect(typeof body.detail[0]?.type).toBe('string');
  });

  it('is 422 for a body that is not an array', async () => {
    const res = await batch({ ids: [] });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      detail: [{ loc: ['body'], msg: 'Input should be a valid list', type: 'list_type' }],
    });
  });

  it('is 422 naming each non-string item', async () => {
    const res = await batch(['ok', 3, null]);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail.map((d) => d.loc)).toEqual([
      ['body', 1],
      ['body', 2],
    ]);
  });

  it('is 422 for malformed JSON and for a missing body', async () => {
    const bad = await batch('[1,');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { type: string }[] }).detail[0]?.type).toBe('json_invalid');
    const none = await api(server, `/api/conversations/${conversationId}/events`);
    expect(none.status).toBe(422);
    expect(((await none.json()) as { detail: unknown[] }).detail).toEqual([
      { loc: ['body'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('keeps events across a server restart', async () => {
    const { dataDir, key } = server;
    await server.close();
    server = await startServer({ dataDir, keys: [key] });
    const res = await batch(events.map((e) => e.id));
    expect(await res.json()).toEqual(events);
  });
});
