// The workspace file server (OpenHands' /api/conversations/{id}/workspace/{path}) and its cookie:
// files of the conversation's folder, an index.html for a directory, real paths that may not leave
// the folder (nor through a link), every answer sandboxed; the cookie, derived from the key, opens
// these routes and nothing else.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw } from '../support/fuzz/raw-http.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
let id = '';
let folder = '';

beforeAll(async () => {
  server = await startServer({ keys: ['user-a', 'user-b'] });
  folder = tempDir('agentd-ws-');
  writeFileSync(join(folder, 'index.html'), '<h1>Report</h1><link rel="stylesheet" href="style.css">');
  writeFileSync(join(folder, 'style.css'), 'h1 { color: green }');
  writeFileSync(join(folder, 'data.txt'), '0123456789');
  writeFileSync(join(folder, '.env'), 'TOKEN=in-the-workspace');
  mkdirSync(join(folder, 'empty'));
  mkdirSync(join(folder, 'site'));
  writeFileSync(join(folder, 'site', 'index.html'), '<p>site</p>');
  const outside = tempDir('agentd-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'SECRET-OUTSIDE');
  symlinkSync(outside, join(folder, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(folder, 'secret-link.txt'));
  symlinkSync(join(folder, 'data.txt'), join(folder, 'data-link.txt'));
  const res = await api(server, '/api/conversations', {
    method: 'POST',
    key: 'user-a',
    body: JSON.stringify({
      agent: { kind: 'Agent', llm: { model: 'openai/gpt-4o', api_key: 'sk-unused' }, tools: [] },
      workspace: { working_dir: folder },
    }),
  });
  id = ((await res.json()) as { id: string }).id;
});
afterAll(() => server.close({ remove: true }));

const get = (path: string, headers: Record<string, string> = { 'x-session-api-key': 'user-a' }) =>
  sendRaw(server.url, { method: 'GET', path: `/api/conversations/${id}/workspace${path}`, headers });

describe('the workspace file server', () => {
  it('answers files with their type, a directory with its index.html, every answer sandboxed', async () => {
    const root = await get('/');
    expect(root.status).toBe(200);
    expect(root.text).toContain('<h1>Report</h1>');
    expect(root.headers['content-type']).toMatch(/^text\/html/);
    expect(root.headers['content-security-policy']).toMatch(/^sandbox allow-scripts/);
    expect(root.headers['content-security-policy']).not.toContain('allow-same-origin');
    expect(root.headers['x-content-type-options']).toBe('nosniff');
    expect((await get('/style.css')).headers['content-type']).toMatch(/^text\/css/);
    expect((await get('/site/')).text).toBe('<p>site</p>');
    // Without the slash, relative links would resolve from the parent: sent to the slash.
    const bare = await get('');
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe(`/api/conversations/${id}/workspace/`);
    expect((await get('/site')).headers.location).toBe(`/api/conversations/${id}/workspace/site/`);
    expect(await get('/empty/')).toMatchObject({
      status: 404,
      text: '{"detail":"No index.html in directory"}',
    });
    expect(await get('/missing.txt')).toMatchObject({ status: 404, text: '{"detail":"File not found"}' });
    expect((await get('/.env')).text).toBe('TOKEN=in-the-workspace'); // the user's own folder, as OpenHands
    const part = await get('/data.txt', { 'x-session-api-key': 'user-a', range: 'bytes=2-4' });
    expect(part).toMatchObject({ status: 206, text: '234' });
    const beyond = await get('/data.txt', { 'x-session-api-key': 'user-a', range: 'bytes=50-60' });
    expect(beyond).toMatchObject({ status: 416, text: '{"detail":"Range Not Satisfiable"}' });
    const etag = String((await get('/data.txt')).headers.etag);
    expect((await get('/data.txt', { 'x-session-api-key': 'user-a', 'if-none-match': etag })).status).toBe(
      304,
    );
    const stale = await get('/data.txt', { 'x-session-api-key': 'user-a', 'if-match': '"other"' });
    expect(stale.status).toBe(412);
    // No CORS: another site cannot read the files with the browser's cookie.
    const cross = await get('/data.txt', { 'x-session-api-key': 'user-a', origin: 'https://evil.example' });
    expect(cross.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a path out of the folder, also through a link; links inside it are followed', async () => {
    for (const path of [
      '/../../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/link-out/secret.txt',
      '/secret-link.txt',
    ]) {
      const res = await get(path);
      expect([400, 404], path).toContain(res.status);
      expect(res.text, path).not.toContain('SECRET-OUTSIDE');
      expect(res.text, path).not.toContain('root:');
    }
    expect(await get('/link-out/secret.txt')).toMatchObject({
      status: 400,
      text: '{"detail":"Path is outside the workspace"}',
    });
    expect((await get('/secret-link.txt')).status).toBe(400);
    expect((await get('/data-link.txt')).text).toBe('0123456789');
  });

  it("is the owner's only: another user's key finds no conversation, no key is a 401", async () => {
    expect((await get('/data.txt', { 'x-session-api-key': 'user-b' })).status).toBe(404);
    expect((await get('/data.txt', {})).status).toBe(401);
    expect((await get('/data.txt', { 'x-session-api-key': 'wrong' })).status).toBe(401);
  });
});

describe('the workspace-session cookie', () => {
  const cookieOf = (setCookie: string | string[] | undefined) => String(setCookie).split(';')[0]!;

  it('opens the workspace routes to a browser, and no other route', async () => {
    const minted = await sendRaw(server.url, {
      method: 'POST',
      path: '/api/auth/workspace-session',
      headers: { 'x-session-api-key': 'user-a' },
    });
    expect(minted.status).toBe(204);
    const setCookie = String(minted.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^oh_workspace_session_key=[\w-]{43}; Path=\/api\/conversations; Max-Age=\d+; HttpOnly; SameSite=None; Secure; Partitioned$/,
    );
    const cookie = cookieOf(minted.headers['set-cookie']);
    expect(cookie).not.toContain('user-a'); // derived from the key, not the key
    expect(await get('/data.txt', { cookie: `theme=dark; ${cookie}` })).toMatchObject({
      status: 200,
      text: '0123456789',
    });
    // The rest of the API does not take it.
    const other = await sendRaw(server.url, {
      method: 'GET',
      path: `/api/conversations/${id}`,
      headers: { cookie },
    });
    expect(other.status).toBe(401);
    // It names its user: user-b's cookie finds none of user-a's conversations.
    const b = await sendRaw(server.url, {
      method: 'POST',
      path: '/api/auth/workspace-session',
      headers: { 'x-session-api-key': 'user-b' },
    });
    expect((await get('/data.txt', { cookie: cookieOf(b.headers['set-cookie']) })).status).toBe(404);
    expect((await get('/data.txt', { cookie: 'oh_workspace_session_key=forged' })).status).toBe(401);
    // Minting needs the key; clearing takes the cookie.
    expect(
      (
        await sendRaw(server.url, {
          method: 'POST',
          path: '/api/auth/workspace-session',
          headers: { cookie },
        })
      ).status,
    ).toBe(401);
    const cleared = await sendRaw(server.url, {
      method: 'DELETE',
      path: '/api/auth/workspace-session',
      headers: { cookie },
    });
    expect(cleared.status).toBe(204);
    expect(String(cleared.headers['set-cookie'])).toMatch(
      /^oh_workspace_session_key=; Path=\/api\/conversations; Max-Age=0;/,
    );
  });
});

describe('workspace links', () => {
  const link = async (key = 'user-a', conversation = id) => {
    const res = await api(server, `/api/conversations/${conversation}/workspace-link`, {
      method: 'POST',
      key,
    });
    return { status: res.status, body: (await res.json()) as { url: string; expires_at: string } };
  };
  const open = (path: string) => sendRaw(server.url, { method: 'GET', path, headers: {} });

  it("opens one conversation's workspace without a key or cookie, relative paths included, for 12 hours", async () => {
    const { status, body } = await link();
    expect(status).toBe(200);
    expect(body.url).toMatch(new RegExp(`^/api/conversations/${id}/workspace/~[0-9a-z]+\\.[\\w-]{43}/$`));
    const hours = (Date.parse(body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const page = await open(body.url);
    expect(page).toMatchObject({ status: 200 });
    expect(page.text).toContain('<h1>Report</h1>');
    expect(page.headers['content-security-policy']).toMatch(/^sandbox /);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect((await open(`${body.url}style.css`)).text).toBe('h1 { color: green }');
    expect((await open(`${body.url}site/`)).text).toBe('<p>site</p>');
    // Without its slash it goes to it, so the page's relative links keep the credential.
    expect((await open(body.url.slice(0, -1))).headers.location).toBe(body.url);
    // The link opens nothing else.
    const token = body.url.split('/workspace/')[1]!;
    expect((await open(`/api/conversations/${id}`)).status).toBe(401);
    expect((await open(`/api/conversations/${id}/events/search?x=${token}`)).status).toBe(401);
  });

  it("opens no other conversation's workspace, and not once expired or altered", async () => {
    const other = await api(server, '/api/conversations', {
      method: 'POST',
      key: 'user-a',
      body: JSON.stringify({
        agent: { kind: 'Agent', llm: { model: 'openai/gpt-4o', api_key: 'sk-unused' }, tools: [] },
        workspace: { working_dir: folder },
      }),
    });
    const otherId = ((await other.json()) as { id: string }).id;
    const { body } = await link();
    const token = body.url.split('/workspace/')[1]!.slice(0, -1);
    expect((await open(`/api/conversations/${otherId}/workspace/${token}/data.txt`)).status).toBe(401);
    const [expires, mac] = token.slice(1).split('.');
    const past = (Math.floor(Date.now() / 1000) - 1).toString(36);
    expect((await open(`/api/conversations/${id}/workspace/~${past}.${mac}/data.txt`)).status).toBe(401);
    const later = (Number.parseInt(expires!, 36) + 3600).toString(36);
    expect((await open(`/api/conversations/${id}/workspace/~${later}.${mac}/data.txt`)).status).toBe(401);
    const flipped = `${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`;
    expect((await open(`/api/conversations/${id}/workspace/~${expires}.${flipped}/data.txt`)).status).toBe(
      401,
    );
    // Another user's link is no link to this conversation, and they cannot make one for it.
    expect((await link('user-b')).status).toBe(404);
  });
});
