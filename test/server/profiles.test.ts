// /api/profiles: named LLM configurations as OpenHands' agent server keeps them, driven over HTTP the
// way its clients do (the SDK's RemoteWorkspace.get_llm reads GET /api/settings' active_profile, then
// GET /api/profiles/{name} with X-Expose-Secrets: plaintext). Secrets are sealed at rest, per user.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROFILES } from '../../src/settings/index.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const KEY = 'sk-PROFILE-PLAINTEXT-KEY-8675309';
const HEADER = 'proxy-PLAINTEXT-HEADER-4242';

const fast = {
  model: 'anthropic/claude-haiku-4-5-20251001',
  api_key: KEY,
  reasoning_effort: 'low',
  extra_headers: { 'X-Proxy-Token': HEADER },
  // A member agentd does not read: kept, so the SDK's LLM comes back as it was saved.
  model_canonical_name: 'claude-haiku-4-5',
};

type Json = Record<string, unknown> & { config?: Record<string, unknown> };

function client(server: TestServer, key = 'alice-key') {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await api(server, path, {
      method,
      key,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, text, body: (text ? JSON.parse(text) : null) as Json };
  };
  return {
    call,
    save: (name: string, llm: unknown, extra: Record<string, unknown> = {}) =>
      call('POST', `/api/profiles/${name}`, { llm, ...extra }),
    get: (name: string, expose?: string) =>
      call('GET', `/api/profiles/${name}`, undefined, expose ? { 'X-Expose-Secrets': expose } : {}),
    list: () => call('GET', '/api/profiles'),
    settings: () => call('GET', '/api/settings'),
  };
}

describe('/api/profiles, exposure off (the default)', () => {
  let server: TestServer;
  let alice: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await startServer({ keys: ['alice-key', 'bob-key'] });
    alice = client(server);
  });
  afterAll(() => server.close({ remove: true }));

  it('saves a profile (201) and lists it without its secrets', async () => {
    const saved = await alice.save('fast', fast);
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({ name: 'fast', message: "Profile 'fast' saved" });
    const list = await alice.list();
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      profiles: [
        {
          name: 'fast',
          model: fast.model,
          base_url: null,
          provider_connection_id: null,
          provider_connection_broken: false,
          api_key_set: true,
        },
      ],
      active_profile: null,
    });
  });

  it('answers a profile with api_key null and header values redacted, unknown members kept', async () => {
    const res = await alice.get('fast');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(KEY);
    expect(res.text).not.toContain(HEADER);
    expect(res.body).toEqual({
      name: 'fast',
      config: { ...fast, api_key: null, extra_headers: { 'X-Proxy-Token': '**********' } },
      api_key_set: true,
    });
  });

  it('refuses secrets in clear with 403 and an unknown profile with 404', async () => {
    expect((await alice.get('fast', 'plaintext')).status).toBe(403);
    const missing = await alice.get('nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Profile 'nope' not found" });
  });

  it("keeps each user's profiles to that user", async () => {
    const bob = client(server, 'bob-key');
    expect((await bob.list()).body).toEqual({ profiles: [], active_profile: null });
    expect((await bob.get('fast')).status).toBe(404);
  });

  it('stores no secret in clear', () => {
    const db = new Database(join(server.dataDir, 'agentd.db'), { readonly: true });
    const documents = db.prepare('SELECT document FROM settings').pluck().all() as string[];
    db.close();
    expect(documents.join('\n')).toContain('llm_profiles');
    for (const secret of [KEY, HEADER]) expect(documents.join('\n')).not.toContain(secret);
    // The files too, the write-ahead log included (recent writes are there until a checkpoint).
    for (const file of ['agentd.db', 'agentd.db-wal'].map((f) => join(server.dataDir, f)))
      if (existsSync(file)) expect(readFileSync(file).includes(KEY), file).toBe(false);
  });

  it('refuses what it could not use: a bad name, a model without its endpoint, no llm', async () => {
    const badName = await alice.save('-dash', fast);
    expect(badName.status).toBe(422);
    expect(badName.body.detail).toMatchObject([{ loc: ['path', 'name'] }]);
    const tooLong = await alice.save('x'.repeat(65), fast);
    expect(tooLong.status).toBe(422);
    const noEndpoint = await alice.save('proxy', { model: 'litellm_proxy/claude' });
    expect(noEndpoint.status).toBe(422);
    expect(noEndpoint.body.detail).toMatchObject([{ loc: ['body', 'llm', 'base_url'] }]);
    const noLlm = await alice.call('POST', '/api/profiles/empty', {});
    expect(noLlm.status).toBe(422);
    const huge = await alice.save('huge', { ...fast, litellm_extra_body: { pad: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(422);
    expect(huge.body.detail).toMatchObject([{ loc: ['body', 'llm'], type: 'too_long' }]);
    expect((await alice.list()).body.profiles).toHaveLength(1);
  });

  it('saves without secrets when include_secrets is false', async () => {
    expect((await alice.save('nokey', fast, { include_secrets: false })).status).toBe(201);
    const res = await alice.get('nokey');
    expect(res.body.api_key_set).toBe(false);
    expect(res.body.config).not.toHaveProperty('extra_headers');
    expect((await alice.call('DELETE', '/api/profiles/nokey')).status).toBe(200);
  });

  it("activates a profile: its LLM becomes the settings' LLM, and the settings name it", async () => {
    const res = await alice.call('POST', '/api/profiles/fast/activate');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: 'fast',
      message: "Profile 'fast' activated and applied to current settings",
      llm_applied: true,
    });
    const settings = await alice.settings();
    expect(settings.body).toMatchObject({
      active_profile: 'fast',
      llm_model: fast.model,
      llm_api_key_set: true,
      agent_settings: { llm: { model: fast.model, api_key: '**********' } },
    });
    // The flat members never carry the profiles.
    expect(settings.body).not.toHaveProperty('llm_profiles');
    expect(settings.text).not.toContain(KEY);
    expect((await alice.call('POST', '/api/profiles/nope/activate')).status).toBe(404);
  });

  it("keeps the profiles when the web UI POSTs its settings (they are not POST's)", async () => {
    const posted = await alice.call('POST', '/api/settings', { llm_model: 'openai/gpt-4o', language: 'fr' });
    expect(posted.status).toBe(200);
    const list = await alice.list();
    expect(list.body.profiles).toHaveLength(1);
    expect(list.body.active_profile).toBe('fast');
  });

  it('renames a profile, the active one following; refuses a taken or unknown name', async () => {
    await alice.save('other', { model: 'openai/gpt-4o' });
    expect((await alice.call('POST', '/api/profiles/fast/rename', { new_name: 'other' })).status).toBe(409);
    expect((await alice.call('POST', '/api/profiles/nope/rename', { new_name: 'x' })).status).toBe(404);
    const same = await alice.call('POST', '/api/profiles/fast/rename', { new_name: 'fast' });
    expect(same.body).toEqual({ name: 'fast', message: "Profile 'fast' unchanged (same name)" });
    const renamed = await alice.call('POST', '/api/profiles/fast/rename', { new_name: 'quick' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ name: 'quick', message: "Profile 'fast' renamed to 'quick'" });
    const list = await alice.list();
    expect((list.body.profiles as { name: string }[]).map((p) => p.name)).toEqual(['other', 'quick']);
    expect(list.body.active_profile).toBe('quick');
    expect((await alice.get('quick')).body.api_key_set).toBe(true);
  });

  it('makes a profile active through PATCH /api/settings, bringing its LLM; unknown is 404, null clears', async () => {
    const res = await alice.call('PATCH', '/api/settings', { active_profile: 'other' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      active_profile: 'other',
      llm_model: 'openai/gpt-4o',
      llm_api_key_set: false,
    });
    const unknown = await alice.call('PATCH', '/api/settings', { active_profile: 'zzz' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Profile 'zzz' not found" });
    const cleared = await alice.call('PATCH', '/api/settings', { active_profile: null });
    expect(cleared.body).toMatchObject({ active_profile: null, llm_model: 'openai/gpt-4o' });
  });

  it('deletes a profile (again is no error), and the active one is no longer active', async () => {
    await alice.call('POST', '/api/profiles/other/activate');
    const deleted = await alice.call('DELETE', '/api/profiles/other');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ name: 'other', message: "Profile 'other' deleted" });
    expect((await alice.call('DELETE', '/api/profiles/other')).status).toBe(200);
    const list = await alice.list();
    expect(list.body.active_profile).toBeNull();
    expect((await alice.settings()).body.active_profile).toBeNull();
  });

  it(`holds at most ${MAX_PROFILES} profiles: a new one past that is 409, replacing one is not`, async () => {
    const bob = client(server, 'bob-key');
    for (let i = 0; i < MAX_PROFILES; i++)
      expect((await bob.save(`p${i}`, { model: 'gpt-4o' })).status).toBe(201);
    const over = await bob.save('one-more', { model: 'gpt-4o' });
    expect(over.status).toBe(409);
    expect(over.body.detail).toContain(`Profile limit reached (${MAX_PROFILES})`);
    expect((await bob.save('p0', { model: 'gpt-4.1' })).status).toBe(201);
  });
});

describe('/api/profiles with secret exposure (as the SDK reads a profile)', () => {
  let server: TestServer;
  let alice: ReturnType<typeof client>;
  beforeAll(async () => {
    server = await startServer({ keys: ['alice-key', 'bob-key'], exposeSecrets: true });
    alice = client(server);
    await alice.save('fast', fast);
  });
  afterAll(() => server.close({ remove: true }));

  it("gives the SDK's get_llm its LLM: active_profile, then the profile in clear", async () => {
    await alice.call('POST', '/api/profiles/fast/activate');
    const active = (await alice.settings()).body.active_profile as string;
    const res = await alice.get(active, 'plaintext');
    expect(res.status).toBe(200);
    expect(res.body.config).toEqual(fast);
  });

  it('takes back what an encrypted read gave, and a redacted key keeps the stored one', async () => {
    const sealed = (await alice.get('fast', 'encrypted')).body.config as Record<string, unknown>;
    expect(sealed.api_key).not.toBe(KEY);
    expect(String(sealed.api_key)).toMatch(/^v1:/);
    expect((await alice.save('copy', sealed)).status).toBe(201);
    expect((await alice.get('copy', 'plaintext')).body.config).toEqual(fast);
    const redacted = (await alice.get('fast')).body.config as Record<string, unknown>;
    const echoed = await alice.save('fast', { ...redacted, api_key: '**********', reasoning_effort: 'high' });
    expect(echoed.status).toBe(201);
    expect((await alice.get('fast', 'plaintext')).body.config).toEqual({ ...fast, reasoning_effort: 'high' });
  });

  it("refuses another user's sealed key (it does not open for them)", async () => {
    const sealed = (await alice.get('fast', 'encrypted')).body.config as Record<string, unknown>;
    const bob = client(server, 'bob-key');
    const res = await bob.save('stolen', sealed);
    expect(res.status).toBe(409);
    expect(res.text).not.toContain(KEY);
    expect((await bob.list()).body.profiles).toEqual([]);
  });
});

describe('POST /api/profiles/{name}/validate: one tiny completion before a save', () => {
  const llm = new ScriptedLLM();
  let server: TestServer;
  let alice: ReturnType<typeof client>;
  beforeAll(async () => {
    await llm.start();
    server = await startServer({ keys: ['alice-key'] });
    alice = client(server);
  });
  afterAll(async () => {
    await server.close({ remove: true });
    await llm.stop();
  });

  const config = (key: string, model = 'openai/gpt-4o') => ({
    model,
    api_key: key,
    base_url: llm.openaiBaseUrl,
  });
  const validate = (name: string, body: unknown) =>
    alice.call('POST', `/api/profiles/${name}/validate`, { llm: body });

  it('answers valid for an LLM that answers, asking for a few tokens, and stores nothing', async () => {
    llm.script('sk-good', [{ text: 'pong' }]);
    const res = await validate('draft', config('sk-good'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, error: null });
    const [sent] = llm.requestsFor('sk-good');
    expect(sent?.body).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 16 });
    expect((await alice.list()).body.profiles).toEqual([]);
  });

  it("names the error when the provider refuses, never the key; a rate limit is no configuration's fault", async () => {
    llm.script('sk-rejected-0123456789', [{ error: { status: 401, message: 'Incorrect API key provided' } }]);
    const refused = await validate('draft', config('sk-rejected-0123456789'));
    expect(refused.body).toMatchObject({ valid: false, error: { type: 'LLMAuthenticationError' } });
    expect(refused.text).not.toContain('sk-rejected-0123456789');
    llm.script('sk-busy', [{ error: { status: 429, message: 'Rate limit reached' } }]);
    expect((await validate('draft', config('sk-busy'))).body).toEqual({ valid: true, error: null });
    expect(llm.requestsFor('sk-busy')).toHaveLength(1); // no retry
    const nowhere = await validate('draft', { model: 'litellm_proxy/claude' });
    expect(nowhere.body).toMatchObject({
      valid: false,
      error: { message: expect.stringContaining('base URL') },
    });
  });

  it("checks a saved profile's stored key when the draft echoes it redacted", async () => {
    expect((await alice.save('saved', config('sk-stored'))).status).toBe(201);
    llm.script('sk-stored', [{ text: 'pong' }]);
    const echoed = { ...((await alice.get('saved')).body.config as object), api_key: '**********' };
    expect((await validate('saved', echoed)).body).toEqual({ valid: true, error: null });
    expect(llm.requestsFor('sk-stored')).toHaveLength(1);
  });
});
