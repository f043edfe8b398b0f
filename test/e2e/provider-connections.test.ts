// /api/llm/provider-connections (OpenHands'): a key and base URL LLM profiles share by id, read when a
// linked profile is used or activated — against the scripted LLM, so which key reaches it is seen.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { userIdForSessionKey } from '../../src/settings/index.js';
import { serverAndLlm, waitForStatus } from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const env = serverAndLlm({ keys: ['alice-key', 'bob-key'] });
const { llm } = env;

const call = async (method: string, path: string, body?: unknown, key = 'alice-key') => {
  const res = await api(env.server, path, {
    method,
    key,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { detail?: unknown } };
};
const finish = (text: string) => [{ toolCalls: [{ name: 'finish', arguments: { message: text } }] }];
/** A conversation of alice's on `profile` (or her settings' LLM), run to its end. */
async function runOn(profile: string | null): Promise<void> {
  const started = await call('POST', '/api/conversations', {
    workspace: { working_dir: tempDir('agentd-connection-') },
    ...(profile ? { llm_profile: profile } : {}),
    initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }], run: true },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  expect(await waitForStatus(env.server, started.body.id as string, ['finished', 'error'])).toBe('finished');
}

describe('provider connections', () => {
  it('lend their key and base URL to the profiles that name them, rotated at the next use', async () => {
    const first = `sk-${randomUUID()}`;
    const second = `sk-${randomUUID()}`;
    llm.script(first, finish('on the first key'));
    llm.script(second, [...finish('on the second key'), ...finish('settings on the second key')]);

    const created = await call('POST', '/api/llm/provider-connections', {
      display_name: 'Scripted',
      provider: 'openai',
      api_key: first,
      base_url: llm.openaiBaseUrl,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      display_name: 'Scripted',
      provider: 'openai',
      base_url: llm.openaiBaseUrl,
      api_key_set: true,
    });
    expect(JSON.stringify(created.body)).not.toContain(first);
    expect((await call('GET', '/api/llm/provider-connections')).body).toEqual([created.body]);
    const stored = (await env.server.store.settings.get(userIdForSessionKey('alice-key'))) ?? '';
    expect(stored).toContain(id);
    expect(stored).not.toContain(first);

    // A linked profile keeps no key or base URL of its own (what it was sent is dropped).
    const saved = await call('POST', '/api/profiles/linked', {
      llm: {
        model: 'openai/scripted',
        provider_connection_id: id,
        api_key: 'sk-inline',
        base_url: 'http://127.0.0.1:9/v1',
        num_retries: 0,
      },
    });
    expect(saved.status).toBe(201);
    const listed = (await call('GET', '/api/profiles')).body.profiles as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        name: 'linked',
        model: 'openai/scripted',
        base_url: null,
        provider_connection_id: id,
        provider_connection_broken: false,
        api_key_set: true,
      },
    ]);
    expect(
      JSON.stringify(await env.server.store.settings.get(userIdForSessionKey('alice-key'))),
    ).not.toContain('sk-inline');

    await runOn('linked');
    expect(llm.requestsFor(first)).toHaveLength(1);
    // Rotated: the next use of the profile takes the new key.
    const rotated = await call('PATCH', `/api/llm/provider-connections/${id}`, { api_key: second });
    expect(rotated.status).toBe(200);
    expect(rotated.body.updated_at as number).toBeGreaterThanOrEqual(created.body.updated_at as number);
    await runOn('linked');
    expect(llm.requestsFor(second)).toHaveLength(1);
    // Activated: the settings' LLM gets the connection's key and base URL as they are now.
    expect((await call('POST', '/api/profiles/linked/activate')).status).toBe(200);
    const settings = (await call('GET', '/api/settings')).body;
    expect(settings).toMatchObject({
      llm_model: 'openai/scripted',
      llm_base_url: llm.openaiBaseUrl,
      llm_api_key_set: true,
    });
    await runOn(null);
    expect(llm.requestsFor(second)).toHaveLength(2);
    expect(llm.requestsFor(first)).toHaveLength(1);

    // The web UI's POST /api/settings replaces the settings, never the connections.
    expect((await call('POST', '/api/settings', { language: 'en' })).status).toBe(200);
    expect((await call('GET', '/api/llm/provider-connections')).body).toHaveLength(1);

    // Not deleted while a profile names it; then deleted, and answered.
    const refused = await call('DELETE', `/api/llm/provider-connections/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/referenced by LLM profile\(s\): linked/);
    expect((await call('DELETE', '/api/profiles/linked')).status).toBe(200);
    const deleted = await call('DELETE', `/api/llm/provider-connections/${id}`);
    expect(deleted).toMatchObject({ status: 200, body: { id, api_key_set: false } });
    expect((await call('GET', '/api/llm/provider-connections')).body).toEqual([]);
  });

  it('refuses what cannot be kept or found, each with its status', async () => {
    const { body } = await call('POST', '/api/llm/provider-connections', {
      display_name: 'x',
      api_key: 'sk-x',
    });
    const id = body.id as string;
    expect(body).toMatchObject({ provider: 'custom', base_url: null });
    const unknownProfile = await call('POST', '/api/profiles/dangling', {
      llm: { model: 'openai/x', provider_connection_id: 'nope' },
    });
    expect(unknownProfile.status).toBe(422);
    expect(JSON.stringify(unknownProfile.body.detail)).toContain('provider_connection_id');
    expect((await call('PATCH', `/api/llm/provider-connections/${id}`, {})).status).toBe(422);
    expect((await call('PATCH', `/api/llm/provider-connections/${id}`, { api_key: null })).status).toBe(422);
    expect((await call('PATCH', `/api/llm/provider-connections/${id}`, { display_name: null })).status).toBe(
      422,
    );
    expect((await call('PATCH', `/api/llm/provider-connections/${id}`, { colour: 'red' })).status).toBe(422);
    expect((await call('POST', '/api/llm/provider-connections', { display_name: 'no key' })).status).toBe(
      422,
    );
    expect((await call('PATCH', '/api/llm/provider-connections/nope', { display_name: 'y' })).status).toBe(
      404,
    );
    expect((await call('DELETE', '/api/llm/provider-connections/nope')).status).toBe(404);
    // Another user's connection is none of bob's.
    expect((await call('GET', '/api/llm/provider-connections', undefined, 'bob-key')).body).toEqual([]);
    expect((await call('DELETE', `/api/llm/provider-connections/${id}`, undefined, 'bob-key')).status).toBe(
      404,
    );
    // The redacted key sent back keeps it; base_url null clears it.
    const kept = await call('PATCH', `/api/llm/provider-connections/${id}`, {
      api_key: '**********',
      base_url: null,
    });
    expect(kept.body).toMatchObject({ api_key_set: true, base_url: null });
  });
});
