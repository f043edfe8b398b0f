import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

const SECRETS = {
  llm_api_key: 'sk-live-PLAINTEXT-LLM-KEY-123',
  search_api_key: 'tvly-PLAINTEXT-SEARCH-456',
  sandbox_api_key: 'sbx-PLAINTEXT-SANDBOX-789',
  github: 'ghp_PLAINTEXTGITHUBTOKEN000',
  custom: 'PLAINTEXT-CUSTOM-SECRET-VALUE',
};

const fullSettings = {
  language: 'en',
  agent: 'CodeActAgent',
  max_iterations: 42,
  confirmation_mode: true,
  llm_model: 'openai/gpt-4o',
  llm_api_key: SECRETS.llm_api_key,
  llm_base_url: 'http://127.0.0.1:9/v1',
  search_api_key: SECRETS.search_api_key,
  sandbox_api_key: SECRETS.sandbox_api_key,
  secrets_store: {
    provider_tokens: { github: { token: SECRETS.github, host: 'github.com' } },
    custom_secrets: { MY_SECRET: { secret: SECRETS.custom, description: 'test' } },
  },
  mcp_config: {
    sse_servers: [],
    stdio_servers: [{ name: 'fs', command: 'node', args: ['x.js'], env: {} }],
    shttp_servers: [],
  },
};

describe('/api/settings', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ keys: ['alice-key', 'bob-key'] });
  });
  afterAll(() => server.close({ remove: true }));

  const post = (body: unknown, key = 'alice-key') =>
    api(server, '/api/settings', { method: 'POST', body: JSON.stringify(body), key });
  const get = (key = 'alice-key') => api(server, '/api/settings', { key });

  // Was 404 before #12: the OpenHands SDK expects defaults, and the web UI's members are all there.
  it('answers the defaults before anything is stored', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.llm_api_key_set).toBe(false);
    expect(body.llm_model).toBeNull();
    expect(body.enable_default_condenser).toBe(true);
    expect(body.llm_api_key_is_set).toBe(false);
  });

  it('stores settings and returns them without any secret', async () => {
    const res = await post(fullSettings);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Settings stored' });

    const got = await get();
    expect(got.status).toBe(200);
    const text = await got.text();
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body.llm_model).toBe('openai/gpt-4o');
    expect(body.max_iterations).toBe(42);
    expect(body.llm_api_key).toBeNull();
    expect(body.llm_api_key_set).toBe(true);
    expect(body.search_api_key_set).toBe(true);
    expect(body.provider_tokens_set).toEqual({ github: 'github.com' });
    expect(body.enable_default_condenser).toBe(true);
    expect(body.enable_sound_notifications).toBe(false);
    expect(body.mcp_config).toMatchObject({ stdio_servers: [{ name: 'fs', command: 'node' }] });
  });

  it('keeps the stored key when a later POST sends null', async () => {
    await post({ ...fullSettings, llm_api_key: null, llm_model: 'anthropic/claude-sonnet-4' });
    const body = (await (await get()).json()) as Record<string, unknown>;
    expect(body.llm_api_key_set).toBe(true);
    expect(body.llm_model).toBe('anthropic/claude-sonnet-4');
  });

  it('keeps settings per user', async () => {
    expect(((await (await get('bob-key')).json()) as Record<string, unknown>).llm_model).toBeNull();
    await post({ llm_model: 'openai/bob-model' }, 'bob-key');
    const bob = (await (await get('bob-key')).json()) as Record<string, unknown>;
    expect(bob.llm_model).toBe('openai/bob-model');
    expect(bob.llm_api_key_set).toBe(false);
    const alice = (await (await get()).json()) as Record<string, unknown>;
    expect(alice.llm_model).toBe('anthropic/claude-sonnet-4');
  });

  it('rejects bad input with 422 in FastAPI shape', async () => {
    const res = await post({ max_iterations: 'many' });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail[0]?.loc).toEqual(['body', 'max_iterations']);
    const bad = await api(server, '/api/settings', {
      method: 'POST',
      body: '{"language":',
      key: 'alice-key',
    });
    expect(bad.status).toBe(422);
  });

  it('never writes a secret in clear to the database files', async () => {
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('agentd.db'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(server.dataDir, file)).toString('latin1');
      for (const secret of Object.values(SECRETS)) expect(bytes, file).not.toContain(secret);
    }
  });
});
