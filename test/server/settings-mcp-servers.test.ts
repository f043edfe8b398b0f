// /api/settings/mcp/{settings_key} (OpenHands' agent server): one saved MCP server at a time, by its
// key in agent_settings.mcp_config, without touching the others; the same record the web UI's three
// lists are (a server it saved is keyed by kind and position). Keys sealed at rest, redacted in answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { api, startServer, type TestServer } from '../support/server.js';

const KEY = 'mcp-PLAINTEXT-BEARER-4711';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ keys: ['alice-key'], exposeSecrets: true });
});
afterAll(() => server.close({ remove: true }));

type View = {
  agent_settings: { mcp_config: Record<string, Record<string, unknown>> };
  mcp_config: Record<string, Record<string, unknown>[]>;
  detail?: unknown;
};

const call = async (method: string, key: string, body?: unknown) => {
  const res = await api(server, `/api/settings/mcp/${encodeURIComponent(key)}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as View };
};
/** The servers with their keys in clear, as the SDK's RemoteWorkspace reads them with exposure on. */
const inClear = async () => {
  const res = await api(server, '/api/settings', { headers: { 'X-Expose-Secrets': 'plaintext' } });
  return ((await res.json()) as View).agent_settings.mcp_config;
};

describe('/api/settings/mcp/{settings_key}', () => {
  it('adds a command and a url server by key, the bearer key sealed at rest and redacted in the answer', async () => {
    const fs = await call('POST', 'fs', { command: 'npx', args: ['-y', 'fs-server'], env: { ROOT: '/srv' } });
    expect(fs.status).toBe(201);
    expect(fs.body.agent_settings.mcp_config.fs).toEqual({
      command: 'npx',
      args: ['-y', 'fs-server'],
      env: { ROOT: '/srv' },
      transport: 'stdio',
    });
    const search = await call('POST', 'search', {
      url: 'https://mcp.example.com/sse',
      transport: 'sse',
      auth: { strategy: 'bearer', value: KEY },
    });
    expect(search.status).toBe(201);
    expect(search.body.agent_settings.mcp_config.search).toEqual({
      url: 'https://mcp.example.com/sse',
      transport: 'sse',
      auth: { strategy: 'bearer', value: '**********' },
    });
    // The web UI's lists hold the same servers, the key null there (it never shows one).
    expect(search.body.mcp_config.sse_servers).toEqual([
      { name: 'search', url: 'https://mcp.example.com/sse', api_key: null },
    ]);
    expect(Object.keys(search.body.agent_settings.mcp_config)).toEqual(['search', 'fs']);
    const stored = (await server.store.settings.get(userIdForSessionKey('alice-key'))) ?? '';
    expect(stored).toContain('mcp.example.com');
    expect(stored).not.toContain(KEY);
    expect((await inClear()).search?.auth).toEqual({ strategy: 'bearer', value: KEY });
  });

  it('refuses a key already saved (409) and a server the settings cannot keep (422), changing nothing', async () => {
    const before = await inClear();
    const taken = await call('POST', 'fs', { command: 'other' });
    expect(taken).toMatchObject({ status: 409, body: { detail: "MCP server 'fs' already exists" } });
    const refused = [
      { command: 'x', cwd: '/tmp' },
      { url: 'https://h.example/mcp', headers: { 'X-Team': 'a' } },
      { url: 'https://h.example/mcp', auth: { strategy: 'basic', username: 'u', password: 'p' } },
      { url: 'ftp://h.example/mcp' },
      {},
    ];
    for (const body of refused) {
      const res = await call('POST', 'new-one', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(res.body.detail)).toContain('body');
    }
    expect(await inClear()).toEqual(before);
  });

  it('changes only the members a patch gives, keeping the bearer key, and moves a server to the transport named', async () => {
    const url = await call('PATCH', 'search', { url: 'https://mcp2.example.com/sse' });
    expect(url.status).toBe(200);
    expect((await inClear()).search).toEqual({
      url: 'https://mcp2.example.com/sse',
      transport: 'sse',
      auth: { strategy: 'bearer', value: KEY },
    });
    // The redacted value a client read and sent back is the stored key.
    await call('PATCH', 'search', {
      auth: { strategy: 'bearer', value: '**********' },
      type: 'http',
      timeout: 30,
    });
    const moved = await inClear();
    expect(moved.search).toEqual({
      url: 'https://mcp2.example.com/sse',
      transport: 'streamable-http',
      timeout: 30,
      auth: { strategy: 'bearer', value: KEY },
    });
    const view = (await api(server, '/api/settings').then((r) => r.json())) as View;
    expect(view.mcp_config.sse_servers).toEqual([]);
    expect(view.mcp_config.shttp_servers).toMatchObject([{ name: 'search', timeout: 30 }]);
    // A command turned into a url keeps nothing of the command.
    await call('PATCH', 'fs', { url: 'https://fs.example.com/mcp' });
    expect((await inClear()).fs).toEqual({
      url: 'https://fs.example.com/mcp',
      transport: 'streamable-http',
      timeout: 60, // the settings' default for a streamable-HTTP server
    });
    expect((await call('PATCH', 'nobody', { url: 'https://x.example' })).status).toBe(404);
  });

  it("reaches the web UI's servers by kind and position, and deletes one leaving the others", async () => {
    const res = await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({
        mcp_config: {
          sse_servers: [{ url: 'https://ui-one.example/sse' }, { url: 'https://ui-two.example/sse' }],
          stdio_servers: [{ name: 'tool', command: 'tool-server' }],
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(Object.keys(await inClear())).toEqual(['sse_1', 'sse_2', 'tool']);
    const removed = await call('DELETE', 'sse_1');
    expect(removed.status).toBe(200);
    expect(removed.body.agent_settings.mcp_config).toEqual({
      sse_1: { url: 'https://ui-two.example/sse', transport: 'sse' },
      tool: { command: 'tool-server', args: [], env: {}, transport: 'stdio' },
    });
    expect((await call('DELETE', 'sse_1')).status).toBe(200);
    expect((await call('DELETE', 'sse_1')).status).toBe(404);
    expect(Object.keys(await inClear())).toEqual(['tool']);
  });
});
