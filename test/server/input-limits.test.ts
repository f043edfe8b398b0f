// Bad input never gets a 5xx: JSON nested past the documented depth (422), bytes that are not UTF-8
// (400), bodies over the limit, chunked or not (413), the router's and Node's own refusals in the
// {detail} shape (400, 414, 431), 64 KB strings in settings (422), and an unknown conversation is
// 404 on every conversation route, each of these statuses documented in /openapi.json.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw } from '../support/fuzz/raw-http.js';
import { api, tempDir as makeTempDir, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const folders: string[] = [];
/** A temp folder removed after the file's tests. */
const tempDir = (prefix: string) => {
  const dir = makeTempDir(prefix);
  folders.push(dir);
  return dir;
};
beforeAll(async () => {
  server = await startServer({ controlPlane: { maxSandboxes: 1, warmSpare: false } });
});
afterAll(async () => {
  await server.close({ remove: true });
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const headers = () => ({ 'x-session-api-key': server.key, 'content-type': 'application/json' });
const post = (path: string, body: Buffer | string, chunked = false) =>
  sendRaw(server.url, { method: 'POST', path, headers: headers(), body: Buffer.from(body), chunked });
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const conversationCount = async () =>
  (await (await api(server, '/api/conversations/count')).json()) as number;

describe('JSON depth limit (100)', () => {
  const startBody = (extra: string) =>
    `{"agent":{"kind":"Agent","llm":{"model":"openai/m","litellm_extra_body":{"x":${extra}}}},` +
    `"workspace":{"working_dir":${JSON.stringify(tempDir('agentd-ws-'))}}}`;

  it.each([
    ['/api/settings', (d: string) => `{"email":"a@b.c","x":${d}}`],
    ['/api/conversations', startBody],
    ['/api/v1/app-conversations', (d: string) => `{"processors":[{"x":${d}}]}`],
  ])('%s: 10,000 levels is a 422 json_too_deep, and nothing is created', async (path, body) => {
    const before = await conversationCount();
    const res = await post(path, body(nested(10_000)));
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text)).toEqual({
      detail: [{ loc: ['body'], msg: expect.stringContaining('100 levels'), type: 'json_too_deep' }],
    });
    expect(await conversationCount()).toBe(before);
  });

  it('accepts exactly 100 levels, and brackets inside strings do not count', async () => {
    const ok = await post('/api/settings', `{"email":"${'['.repeat(500)}","x":${nested(99)}}`);
    expect(ok.status).toBe(200);
    // An escaped quote does not end the string: the brackets after it are still text.
    const escaped = await post('/api/settings', `{"email":"\\"${'{'.repeat(500)}","x":${nested(99)}}`);
    expect(escaped.status).toBe(200);
    const tooDeep = await post('/api/settings', `{"x":${nested(100)}}`);
    expect(tooDeep.status).toBe(422);
  });
});

describe('encoding and size', () => {
  it('invalid UTF-8 is a 400 and nothing is stored', async () => {
    await post('/api/settings', '{"email":"before@example.com"}');
    const bytes = Buffer.concat([
      Buffer.from('{"email":"'),
      Buffer.from([0xff, 0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const res = await post('/api/settings', bytes);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ detail: 'The request body is not valid UTF-8' });
    const stored = (await (await api(server, '/api/settings')).json()) as { email: string };
    expect(stored.email).toBe('before@example.com');
  });

  it.each([
    ['__proto__', '{"email":"a@b.c","__proto__":{"admin":true}}'],
    ['an escaped __proto__', '{"secrets_store":{"custom_secrets":{"\\u005f_proto__":{"secret":"x"}}}}'],
    ['constructor.prototype', '{"mcp_config":{"constructor":{"prototype":{"admin":true}}}}'],
  ])("a %s member is a 400, as with Fastify's own parser", async (_name, body) => {
    const res = await post('/api/settings', body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ detail: 'Object contains forbidden prototype property' });
  });

  it('a UTF-8 BOM is accepted', async () => {
    const res = await post(
      '/api/settings',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]),
    );
    expect(res.status).toBe(200);
  });

  it.each([false, true])('a body over 16 MB is a 413 {detail} (chunked: %s)', async (chunked) => {
    const body = `{"email":"${'x'.repeat(17 * 1024 * 1024)}"}`;
    const res = await post('/api/settings', body, chunked);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ detail: expect.any(String) });
  });

  it('an answer given before the body was read still reaches a client that is sending it', async () => {
    // The client asks to close the connection (no keep-alive): the unread rest must not reset it.
    const tooLarge = await post('/api/settings', Buffer.alloc(100 * 1024 * 1024, 0x20));
    expect(tooLarge.status).toBe(413);
    const unread = await sendRaw(server.url, {
      method: 'GET',
      path: '/api/conversations/search',
      headers: headers(),
      body: Buffer.alloc(8 * 1024 * 1024, 0x20),
      chunked: true,
    });
    expect(unread.status).toBe(200);
  });

  it('the GET body of the batch event route over 1 MB is a 413, chunked too', async () => {
    const res = await sendRaw(server.url, {
      method: 'GET',
      path: `/api/conversations/${randomUUID()}/events`,
      headers: headers(),
      body: Buffer.from(JSON.stringify(Array.from({ length: 60_000 }, () => randomUUID()))),
      chunked: true,
    });
    expect(res.status).toBe(413);
  });

  it('settings strings are at most 64 KB', async () => {
    expect((await post('/api/settings', JSON.stringify({ email: 'x'.repeat(64 * 1024) }))).status).toBe(200);
    const res = await post('/api/settings', JSON.stringify({ git_user_name: 'x'.repeat(64 * 1024 + 1) }));
    expect(res.status).toBe(422);
    expect(JSON.stringify(JSON.parse(res.text).detail)).toContain('git_user_name');
  });
});

describe('a working directory that cannot be created', () => {
  it.each([
    ['a NUL byte', `${tempDir('agentd-ws-')}/a\u0000b`],
    ['a name over 255 bytes', `${tempDir('agentd-ws-')}/${'x'.repeat(300)}`],
  ])('%s is a 422 on working_dir', async (_name, workingDir) => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { kind: 'Agent', llm: { model: 'openai/m', base_url: 'http://127.0.0.1:9' } },
        workspace: { working_dir: workingDir },
      }),
    });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(detail[0]!.loc).toEqual(['body', 'workspace', 'working_dir']);
  });
});

describe("the router's and Node's refusals are {detail} answers", () => {
  const get = (path: string, extra: Record<string, string> = {}) =>
    sendRaw(server.url, { method: 'GET', path, headers: { ...headers(), ...extra } });

  it.each([
    ['a bad percent-encoding in the path', '/api/conversations/%E0%A4%A', 400],
    ['a path parameter over 100 characters', `/api/conversations/${'a'.repeat(101)}`, 414],
    ['a query past 16 KB', `/api/conversations/search?page_id=${'x'.repeat(20_000)}`, 431],
  ])('%s', async (_name, path, status) => {
    const res = await get(path);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.text)).toEqual({ detail: expect.any(String) });
  });

  it('headers past 16 KB are a 431 {detail}', async () => {
    const res = await get('/api/conversations/count', { 'x-filler': 'y'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(JSON.parse(res.text)).toEqual({ detail: expect.any(String) });
  });

  it('an unsupported media type is a 415 {detail}, text/plain too', async () => {
    for (const type of ['application/xml', 'text/plain']) {
      const res = await sendRaw(server.url, {
        method: 'POST',
        path: '/api/settings',
        headers: { ...headers(), 'content-type': type },
        body: Buffer.from('{}'),
      });
      expect(res.status).toBe(415);
      expect(JSON.parse(res.text)).toEqual({ detail: expect.any(String) });
    }
  });
});

describe('an unknown conversation', () => {
  type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  let doc: Doc;
  beforeAll(async () => {
    doc = (await (await api(server, '/openapi.json')).json()) as Doc;
  });

  const bodies: Record<string, unknown> = {
    secrets: { secrets: {} },
    confirmation_policy: { policy: { kind: 'NeverConfirm' } },
    security_analyzer: { security_analyzer: null },
    ask_agent: { question: 'why?' },
    events: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    respond_to_confirmation: { accept: true },
    navigate: { event_id: null },
    switch_llm: { llm: { model: 'gpt-4o' } },
    switch_profile: { profile_name: 'fast' },
    load_plugin: { plugin_ref: 'github:owner/plugin' },
    switch_acp_model: { model: 'claude-opus' },
    goal: { objective: 'make it work' },
  };

  it('is a 404 on every route under /api/conversations/{conversation_id}, and each documents it', async () => {
    const id = randomUUID();
    const answers: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      if (!template.startsWith('/api/conversations/{conversation_id}')) continue;
      for (const [method, op] of Object.entries(item)) {
        expect(op.responses, `${method} ${template}`).toHaveProperty('404');
        const path = template.replace('{conversation_id}', id).replace('{event_id}', 'some-event');
        const last = template.split('/').pop()!;
        const body =
          method === 'patch' ? { title: 'x' } : method === 'get' && last === 'events' ? ['e'] : bodies[last];
        const res = await sendRaw(server.url, {
          method: method.toUpperCase(),
          path,
          headers: headers(),
          body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
        });
        answers.push(`${method.toUpperCase()} ${template} ${res.status} ${res.text}`);
      }
    }
    expect(answers.length).toBeGreaterThanOrEqual(18);
    for (const answer of answers)
      expect(answer).toMatch(/ 404 \{"detail":"(Conversation not found: |Not Found)/);
  });
});

describe('the OpenAPI document', () => {
  it('documents the framework statuses on every operation, and null where the start task has it', async () => {
    const doc = (await (await api(server, '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: {
        schemas: Record<string, { properties: Record<string, { properties: Record<string, unknown> }> }>;
      };
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['400', '408', '431']),
        );
        if (['post', 'patch', 'delete'].includes(method)) {
          expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
            expect.arrayContaining(['413', '415']),
          );
        }
        // A named parameter has a length limit (414); a wildcard tail (`{*}`, git's path forms) has none.
        if (/\{(?!\*\})[^}]+\}/.test(path)) {
          expect(op.responses, `${method} ${path}`).toHaveProperty('414');
        }
      }
    }
    const request = doc.components.schemas.AppConversationStartTask!.properties.request!.properties;
    expect(request.git_provider).toMatchObject({ enum: expect.arrayContaining([null]) });
    expect(request.trigger).toMatchObject({ enum: expect.arrayContaining([null]) });
  });
});
