// The two API additions the web UI uses: starting a conversation on the settings' LLM with another
// model (`llm_model`: the page cannot send the write-only key), and testing a saved MCP server.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishStep, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;
beforeAll(async () => {
  await llm.start();
  server = await startServer({ keys: ['web-api-key'] });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const post = (path: string, body: unknown) =>
  api(server, path, { method: 'POST', body: JSON.stringify(body) });

describe('llm_model on start', () => {
  it("runs the settings' LLM, key and base URL included, with the model asked for", async () => {
    llm.script('sk-settings-key', [finishStep]);
    const stored = await post('/api/settings', {
      llm_model: 'openai/settings-model',
      llm_base_url: llm.openaiBaseUrl,
      llm_api_key: 'sk-settings-key',
    });
    expect(stored.status).toBe(200);
    const res = await post('/api/conversations', {
      llm_model: 'openai/other-model',
      workspace: { working_dir: tempDir('agentd-web-api-') },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await waitForStatus(server, id, ['finished']);
    const [request] = llm.requestsFor('sk-settings-key');
    expect(request?.body.model).toBe('other-model');
    const info = (await (await api(server, `/api/conversations/${id}`)).json()) as {
      agent: { llm: { model: string } };
    };
    expect(info.agent.llm.model).toBe('openai/other-model');
  });

  it('is refused blank or too long', async () => {
    for (const llm_model of ['', 'x'.repeat(257)]) {
      const res = await post('/api/conversations', { llm_model, workspace: { working_dir: '/tmp' } });
      expect(res.status).toBe(422);
    }
  });
});

describe('POST /api/settings/mcp/test', () => {
  it("lists a working server's tools, says why another fails, and 404s a server that is not saved", async () => {
    const script = join(process.cwd(), 'test/support/mcp-server.mjs');
    await post('/api/settings', {
      mcp_config: {
        stdio_servers: [
          { name: 'good', command: process.execPath, args: [script, 'stdio'], env: {} },
          { name: 'bad', command: '/nonexistent/mcp-server', args: [], env: {} },
        ],
      },
    });
    const good = await post('/api/settings/mcp/test', { type: 'stdio', index: 0 });
    expect(await good.json()).toEqual({ ok: true, tools: ['add', 'explode', 'die'] });
    const bad = (await (await post('/api/settings/mcp/test', { type: 'stdio', index: 1 })).json()) as {
      ok: boolean;
      error: string;
    };
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/ENOENT|not found|closed/i);
    expect((await post('/api/settings/mcp/test', { type: 'stdio', index: 2 })).status).toBe(404);
    expect((await post('/api/settings/mcp/test', { type: 'shttp', index: 0 })).status).toBe(404);
    expect((await post('/api/settings/mcp/test', { type: 'ftp', index: 0 })).status).toBe(422);
    expect((await post('/api/settings/mcp/test', { type: 'stdio', index: -1 })).status).toBe(422);
    expect(
      (await api(server, '/api/settings/mcp/test', { method: 'POST', body: '{}', key: null })).status,
    ).toBe(401);
  });
});

describe('POST /api/mcp/test (OpenHands: a server given whole, nothing saved)', () => {
  const script = join(process.cwd(), 'test/support/mcp-server.mjs');
  const stdio = { command: process.execPath, args: [script, 'stdio'] };
  const test = async (body: unknown) => {
    const res = await post('/api/mcp/test', body);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('lists its tools and calls one when asked, its answer verbatim', async () => {
    expect(await test({ server: { type: 'stdio', ...stdio } })).toEqual({
      status: 200,
      body: { ok: true, tools: ['add', 'explode', 'die'] },
    });
    const added = await test({
      name: 'calc',
      server: stdio,
      tool_call: { name: 'add', arguments: { a: 2, b: 3 } },
    });
    expect(added.body).toEqual({
      ok: true,
      tools: ['add', 'explode', 'die'],
      tool_result: { is_error: false, text: '5' },
    });
    const failed = await test({ server: stdio, tool_call: { name: 'explode' } });
    expect(failed.body.tool_result).toEqual({ is_error: true, text: 'it broke' });
    const unknown = await test({ server: stdio, tool_call: { name: 'nope' } });
    expect(unknown.body).toMatchObject({ ok: true, tool_result: { is_error: true } });
    // Nothing was saved.
    const settings = (await (await api(server, '/api/settings')).json()) as { mcp_config: unknown };
    expect(JSON.stringify(settings.mcp_config ?? null)).not.toContain('calc');
  });

  it('says why it cannot connect, and how: timeout or connection', async () => {
    const silent = await test({ server: { command: 'sleep', args: ['5'] }, timeout: 0.5 });
    expect(silent.body).toEqual({ ok: false, error: 'no answer within 0.5 s', error_kind: 'timeout' });
    const missing = await test({ server: { command: '/nonexistent/mcp-server' } });
    expect(missing.body).toMatchObject({ ok: false, error_kind: 'connection' });
    const refused = await test({ server: { type: 'http', url: 'http://127.0.0.1:9/mcp' }, timeout: 5 });
    expect(refused.body).toMatchObject({ ok: false, error_kind: 'connection' });
  });

  it('refuses what is not a server (422) and needs the key', async () => {
    const both = await test({ server: { command: 'x', url: 'http://127.0.0.1:9/mcp' } });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ detail: [{ loc: ['body', 'server'] }] });
    expect((await test({ server: { url: 'ftp://example.com/mcp' } })).status).toBe(422);
    expect((await test({ server: stdio, timeout: 0 })).status).toBe(422);
    expect((await test({ server: stdio, timeout: 121 })).status).toBe(422);
    expect((await test({ server: { type: 'stdio', url: 'http://127.0.0.1:9/mcp' } })).status).toBe(422);
    expect((await api(server, '/api/mcp/test', { method: 'POST', body: '{}', key: null })).status).toBe(401);
  });
});
