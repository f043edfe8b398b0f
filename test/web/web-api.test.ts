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
