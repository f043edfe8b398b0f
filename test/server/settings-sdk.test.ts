// The agent server's settings API as the OpenHands SDK calls it (openhands/sdk/workspace/remote/
// base.py: get_llm, get_mcp_config, get_secrets, _get_secret_value; LookupSecret.get_value), against
// the same record the web UI's POST /api/settings writes. Exposure off by default, on by option.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/cli/config.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const LLM_KEY = 'sk-SDK-PLAINTEXT-LLM-KEY-314';
const MCP_KEY = 'mcp-PLAINTEXT-BEARER-271';
const SECRET = 'super-secret-token-12345';

/** What the tests read of an answer: the SDK's members typed, the rest loose. */
interface Json {
  [member: string]: unknown;
  agent_settings: {
    llm: Record<string, unknown>;
    mcp_config: Record<string, unknown>;
    condenser: Record<string, unknown>;
  };
  conversation_settings: Record<string, unknown>;
}

async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

describe('/api/settings for the OpenHands SDK, exposure off (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['alice-key', 'bob-key'] });
  });
  afterAll(() => server.close({ remove: true }));

  const patch = (body: unknown, key = 'alice-key') =>
    api(server, '/api/settings', { method: 'PATCH', body: JSON.stringify(body), key });

  it("answers defaults before anything is stored, with both clients' members", async () => {
    const res = await api(server, '/api/settings', { key: 'bob-key' });
    expect(res.status).toBe(200);
    const body = await json(res);
    // The SDK's SettingsResponse members.
    expect(body.llm_api_key_is_set).toBe(false);
    expect(body.agent_settings).toMatchObject({
      agent_kind: 'openhands',
      llm: { api_key: null },
      mcp_config: {},
    });
    expect(body.conversation_settings).toMatchObject({ schema_version: 1 });
    expect(body.active_profile).toBeNull();
    expect(body.misc_settings).toEqual({});
    // The web UI's flat members.
    expect(body.llm_api_key_set).toBe(false);
    expect(body.enable_default_condenser).toBe(true);
    expect(body.llm_model).toBeNull();
  });

  it('stores an LLM with PATCH agent_settings_diff and answers it redacted', async () => {
    const res = await patch({ agent_settings_diff: { llm: { model: 'openai/gpt-4o', api_key: LLM_KEY } } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(LLM_KEY);
    const body = JSON.parse(text) as Json;
    expect(body.agent_settings.llm).toEqual({ model: 'openai/gpt-4o', api_key: '**********' });
    expect(body.llm_api_key_is_set).toBe(true);
    // The same record: the web UI's members see the PATCH.
    expect(body.llm_model).toBe('openai/gpt-4o');
    expect(body.llm_api_key_set).toBe(true);
    expect(body.llm_api_key).toBeNull();
  });

  it('shows what the web UI POSTs in the SDK members (one record)', async () => {
    const posted = await api(server, '/api/settings', {
      method: 'POST',
      key: 'alice-key',
      body: JSON.stringify({
        llm_model: 'anthropic/claude-sonnet-4',
        max_iterations: 33,
        confirmation_mode: true,
        security_analyzer: 'llm',
        mcp_config: {
          stdio_servers: [{ name: 'fs', command: 'node', args: ['fs.js'] }],
          shttp_servers: [{ url: 'http://127.0.0.1:9/mcp', api_key: MCP_KEY }],
        },
      }),
    });
    expect(posted.status).toBe(200);
    const res = await api(server, '/api/settings', { key: 'alice-key' });
    const text = await res.text();
    expect(text).not.toContain(MCP_KEY);
    expect(text).not.toContain(LLM_KEY);
    const body = JSON.parse(text) as Json;
    expect(body.llm_api_key_is_set).toBe(true); // a POST without a key keeps it
    expect(body.agent_settings.llm.model).toBe('anthropic/claude-sonnet-4');
    expect(body.agent_settings.mcp_config).toEqual({
      fs: { command: 'node', args: ['fs.js'], env: {}, transport: 'stdio' },
      shttp_1: {
        url: 'http://127.0.0.1:9/mcp',
        transport: 'streamable-http',
        timeout: 60,
        auth: { strategy: 'bearer', value: '**********' },
      },
    });
    expect(body.conversation_settings).toMatchObject({
      max_iterations: 33,
      confirmation_mode: true,
      security_analyzer: 'llm',
    });
  });

  it('merges conversation_settings_diff and keeps the key on a redacted echo', async () => {
    const res = await patch({
      agent_settings_diff: { llm: { api_key: '**********' }, condenser: { max_size: 80 } },
      conversation_settings_diff: { max_iterations: 7, security_analyzer: null },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.llm_api_key_is_set).toBe(true);
    expect(body.conversation_settings).toMatchObject({
      max_iterations: 7,
      confirmation_mode: true,
      security_analyzer: null,
    });
    expect(body.agent_settings.condenser).toMatchObject({ enabled: true, max_size: 80 });
    expect(body.max_iterations).toBe(7);
    expect(body.condenser_max_size).toBe(80);
  });

  it('refuses what it would not store, and an empty update', async () => {
    expect((await patch({})).status).toBe(400);
    const unknown = await patch({ agent_settings_diff: { llm: { temperature: 0.2 } } });
    expect(unknown.status).toBe(422);
    expect((await patch({ misc_settings_diff: { a: 1 } })).status).toBe(422);
    expect((await patch({ conversation_settings_diff: { max_iterations: 0 } })).status).toBe(422);
  });

  it('refuses X-Expose-Secrets: plaintext with 403, and a bad value with 400', async () => {
    // get_llm() / get_mcp_config() send this header; without exposure the answer says why.
    const plain = await api(server, '/api/settings', {
      key: 'alice-key',
      headers: { 'X-Expose-Secrets': 'plaintext' },
    });
    expect(plain.status).toBe(403);
    const text = await plain.text();
    expect(text).toContain('AGENTD_EXPOSE_SECRETS');
    expect(text).not.toContain(LLM_KEY);
    const bad = await api(server, '/api/settings', {
      key: 'alice-key',
      headers: { 'X-Expose-Secrets': 'yes' },
    });
    expect(bad.status).toBe(400);
  });

  it('answers sealed values for X-Expose-Secrets: encrypted, and a sealed echo keeps the key', async () => {
    const res = await api(server, '/api/settings', {
      key: 'alice-key',
      headers: { 'X-Expose-Secrets': 'encrypted' },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    const sealed = body.agent_settings.llm.api_key as string;
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(LLM_KEY);
    const echoed = await json(await patch({ agent_settings_diff: { llm: { api_key: sealed } } }));
    expect(echoed.llm_api_key_is_set).toBe(true);
  });

  it('stores, lists and deletes secrets as get_secrets() and the example do', async () => {
    const put = await api(server, '/api/settings/secrets', {
      method: 'PUT',
      key: 'alice-key',
      body: JSON.stringify({ name: 'MY_PROJECT_TOKEN', value: SECRET, description: 'Example project token' }),
    });
    expect(put.status).toBe(200);
    expect(await json(put)).toEqual({ name: 'MY_PROJECT_TOKEN', description: 'Example project token' });
    await api(server, '/api/settings/secrets', {
      method: 'PUT',
      key: 'alice-key',
      body: JSON.stringify({ name: 'OTHER', value: 'x' }),
    });

    const list = await api(server, '/api/settings/secrets', { key: 'alice-key' });
    const listText = await list.text();
    expect(listText).not.toContain(SECRET);
    expect(JSON.parse(listText)).toEqual({
      secrets: [
        { name: 'MY_PROJECT_TOKEN', description: 'Example project token' },
        { name: 'OTHER', description: null },
      ],
    });
    expect(await json(await api(server, '/api/settings/secrets', { key: 'bob-key' }))).toEqual({
      secrets: [],
    });

    // The value route (LookupSecret) is closed while exposure is off.
    const value = await api(server, '/api/settings/secrets/MY_PROJECT_TOKEN', { key: 'alice-key' });
    expect(value.status).toBe(403);
    expect(await value.text()).not.toContain(SECRET);

    const del = await api(server, '/api/settings/secrets/OTHER', { method: 'DELETE', key: 'alice-key' });
    expect(del.status).toBe(200);
    expect(await json(del)).toEqual({ deleted: true });
    const again = await api(server, '/api/settings/secrets/OTHER', { method: 'DELETE', key: 'alice-key' });
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ detail: 'Secret not found' });
  });

  it('refuses bad secret names and empty values with 422, and needs the session key', async () => {
    const put = (body: unknown) =>
      api(server, '/api/settings/secrets', { method: 'PUT', key: 'alice-key', body: JSON.stringify(body) });
    expect((await put({ name: '1abc', value: 'x' })).status).toBe(422);
    expect((await put({ name: 'a-b', value: 'x' })).status).toBe(422);
    expect((await put({ name: 'OK', value: '' })).status).toBe(422);
    expect(
      (await api(server, '/api/settings/secrets/bad-name', { method: 'DELETE', key: 'alice-key' })).status,
    ).toBe(422);
    expect((await api(server, '/api/settings/secrets', { key: null })).status).toBe(401);
    expect((await api(server, '/api/settings', { method: 'PATCH', key: null, body: '{}' })).status).toBe(401);
  });

  it('never writes a secret in clear to the database files', () => {
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('agentd.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(server.dataDir, file)).toString('latin1');
      for (const secret of [LLM_KEY, MCP_KEY, SECRET]) expect(bytes, file).not.toContain(secret);
    }
  });
});

describe('/api/settings for the OpenHands SDK, exposure on', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['alice-key', 'bob-key'], exposeSecrets: true });
  });
  afterAll(() => server.close({ remove: true }));

  it('get_llm(): plaintext only with the header', async () => {
    await api(server, '/api/settings', {
      method: 'PATCH',
      key: 'alice-key',
      body: JSON.stringify({
        agent_settings_diff: {
          llm: { model: 'openai/gpt-4o', api_key: LLM_KEY, base_url: 'http://127.0.0.1:9/v1' },
        },
      }),
    });
    // get_llm() first reads without the header (active_profile), then with it.
    const first = await json(await api(server, '/api/settings', { key: 'alice-key' }));
    expect(first.active_profile).toBeNull();
    expect(first.agent_settings.llm.api_key).toBe('**********');
    const res = await api(server, '/api/settings', {
      key: 'alice-key',
      headers: { 'X-Expose-Secrets': 'plaintext' },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.agent_settings.llm).toEqual({
      model: 'openai/gpt-4o',
      api_key: LLM_KEY,
      base_url: 'http://127.0.0.1:9/v1',
    });
    // The flat members stay secret-free even then: the web UI never sees a key.
    expect(body.llm_api_key).toBeNull();
    // Another user's plaintext view holds nothing of alice's.
    const bob = await api(server, '/api/settings', {
      key: 'bob-key',
      headers: { 'X-Expose-Secrets': 'plaintext' },
    });
    expect(await bob.text()).not.toContain(LLM_KEY);
  });

  it('LookupSecret / _get_secret_value(): the value as text/plain, per user', async () => {
    await api(server, '/api/settings/secrets', {
      method: 'PUT',
      key: 'alice-key',
      body: JSON.stringify({ name: 'github_token', value: SECRET }),
    });
    // LookupSecret sends only the headers get_secrets() gave it: the session key.
    const res = await api(server, '/api/settings/secrets/github_token', { key: 'alice-key' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(SECRET);
    const bob = await api(server, '/api/settings/secrets/github_token', { key: 'bob-key' });
    expect(bob.status).toBe(404);
    // Replacing a secret (PUT is an upsert) answers the new value.
    await api(server, '/api/settings/secrets', {
      method: 'PUT',
      key: 'alice-key',
      body: JSON.stringify({ name: 'github_token', value: 'rotated' }),
    });
    expect(await (await api(server, '/api/settings/secrets/github_token', { key: 'alice-key' })).text()).toBe(
      'rotated',
    );
  });

  it('concurrent PUTs lose no secret', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `S${i}`);
    const answers = await Promise.all(
      names.map((name) =>
        api(server, '/api/settings/secrets', {
          method: 'PUT',
          key: 'bob-key',
          body: JSON.stringify({ name, value: `v-${name}` }),
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(names.map(() => 200));
    const list = await json(await api(server, '/api/settings/secrets', { key: 'bob-key' }));
    expect((list.secrets as { name: string }[]).map((s) => s.name).sort()).toEqual([...names].sort());
  });
});

describe('secrets under a changed secret key', () => {
  it('answers 409 (store it again), never a 500 or a wrong value', async () => {
    const first = await startServer({
      keys: ['k'],
      exposeSecrets: true,
      env: { OH_SECRET_KEY: 'first key' },
    });
    await api(first, '/api/settings/secrets', {
      method: 'PUT',
      body: JSON.stringify({ name: 'TOKEN', value: SECRET }),
    });
    await api(first, '/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ agent_settings_diff: { llm: { api_key: LLM_KEY } } }),
    });
    await first.close();
    const second = await startServer({
      keys: ['k'],
      dataDir: first.dataDir,
      exposeSecrets: true,
      env: { OH_SECRET_KEY: 'second key' },
    });
    try {
      const value = await api(second, '/api/settings/secrets/TOKEN');
      expect(value.status).toBe(409);
      expect(await value.text()).not.toContain(SECRET);
      const plain = await api(second, '/api/settings', { headers: { 'X-Expose-Secrets': 'plaintext' } });
      expect(plain.status).toBe(409);
      // Without exposure nothing needs opening: the list and the redacted view still answer.
      expect((await api(second, '/api/settings')).status).toBe(200);
      expect(await json(await api(second, '/api/settings/secrets'))).toEqual({
        secrets: [{ name: 'TOKEN', description: null }],
      });
      // Storing it again mends it.
      await api(second, '/api/settings/secrets', {
        method: 'PUT',
        body: JSON.stringify({ name: 'TOKEN', value: 'new' }),
      });
      expect(await (await api(second, '/api/settings/secrets/TOKEN')).text()).toBe('new');
    } finally {
      await second.close({ remove: true });
    }
  });
});

describe('secret exposure configuration', () => {
  it('is off by default, on with --expose-secrets or AGENTD_EXPOSE_SECRETS=1/true', () => {
    const dataDir = tempDir();
    const env = { OH_SESSION_API_KEYS_0: 'k' };
    expect(resolveConfig({ dataDir }, env).exposeSecrets).toBe(false);
    expect(resolveConfig({ dataDir }, { ...env, AGENTD_EXPOSE_SECRETS: '0' }).exposeSecrets).toBe(false);
    expect(resolveConfig({ dataDir }, { ...env, AGENTD_EXPOSE_SECRETS: '1' }).exposeSecrets).toBe(true);
    expect(resolveConfig({ dataDir }, { ...env, AGENTD_EXPOSE_SECRETS: 'TRUE' }).exposeSecrets).toBe(true);
    expect(resolveConfig({ dataDir, exposeSecrets: true }, env).exposeSecrets).toBe(true);
  });
});
