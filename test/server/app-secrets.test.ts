// OpenHands' app-server /api/secrets as its web UI's Secrets page calls it (frontend/src/api/
// secrets-service.ts): list, create, rename with a description, delete; the same secrets the SDK's
// /api/settings/secrets reads, values never answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

const VALUE = 'PLAINTEXT-SECRET-VALUE-827';

describe('/api/secrets', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Exposure on, so the test can read a value back through the SDK's route.
    server = await startServer({ keys: ['alice-key', 'bob-key'], exposeSecrets: true });
  });
  afterAll(() => server.close({ remove: true }));

  const call = async (method: string, path: string, body?: unknown, key = 'alice-key') => {
    const res = await api(server, path, {
      method,
      key,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const list = (key = 'alice-key') => call('GET', '/api/secrets', undefined, key);

  it('creates, lists, renames and deletes a secret; its value stays and never comes back', async () => {
    expect(await list()).toEqual({ status: 200, body: { custom_secrets: [] } });
    const created = await call('POST', '/api/secrets', {
      name: 'DEPLOY_TOKEN',
      value: VALUE,
      description: 'ci',
    });
    expect(created).toEqual({ status: 201, body: { message: 'Secret created successfully' } });
    expect((await list()).body).toEqual({ custom_secrets: [{ name: 'DEPLOY_TOKEN', description: 'ci' }] });
    // The same secret the SDK's route lists; another user sees none.
    expect((await call('GET', '/api/settings/secrets')).body).toEqual({
      secrets: [{ name: 'DEPLOY_TOKEN', description: 'ci' }],
    });
    expect((await list('bob-key')).body).toEqual({ custom_secrets: [] });

    // A name taken is a 400 (as in OpenHands), and the stored value is not replaced.
    const again = await call('POST', '/api/secrets', { name: 'DEPLOY_TOKEN', value: 'other' });
    expect(again).toEqual({ status: 400, body: { detail: 'Secret DEPLOY_TOKEN already exists' } });

    await call('POST', '/api/secrets', { name: 'OTHER', value: 'x' });
    const renamed = await call('PUT', '/api/secrets/DEPLOY_TOKEN', {
      name: 'RELEASE_TOKEN',
      description: 'cd',
    });
    expect(renamed).toEqual({ status: 200, body: { message: 'Secret updated successfully' } });
    expect((await list()).body.custom_secrets).toEqual([
      { name: 'OTHER', description: null },
      { name: 'RELEASE_TOKEN', description: 'cd' },
    ]);
    const value = await api(server, '/api/settings/secrets/RELEASE_TOKEN', { key: 'alice-key' });
    expect(await value.text()).toBe(VALUE);
    expect((await call('PUT', '/api/secrets/RELEASE_TOKEN', { name: 'OTHER' })).status).toBe(400);
    expect((await call('PUT', '/api/secrets/DEPLOY_TOKEN', { name: 'X' })).status).toBe(404);
    expect((await call('PUT', '/api/secrets/RELEASE_TOKEN', { name: 'X' }, 'bob-key')).status).toBe(404);

    expect(await call('DELETE', '/api/secrets/RELEASE_TOKEN')).toEqual({
      status: 200,
      body: { message: 'Secret deleted successfully' },
    });
    expect((await call('DELETE', '/api/secrets/RELEASE_TOKEN')).status).toBe(404);
    expect(JSON.stringify(await list())).not.toContain(VALUE);
  });

  it('refuses a name that is no variable name, and a body without a value, with a 422', async () => {
    expect((await call('POST', '/api/secrets', { name: 'has space', value: 'v' })).status).toBe(422);
    expect((await call('POST', '/api/secrets', { name: 'NO_VALUE' })).status).toBe(422);
    expect((await call('PUT', '/api/secrets/OTHER', { description: 'no name' })).status).toBe(422);
  });

  it("is the app server's: a server without the control plane (a sandbox's) does not serve it", async () => {
    const agentServer = await startServer({ controlPlane: false });
    try {
      expect((await api(agentServer, '/api/secrets')).status).toBe(404);
    } finally {
      await agentServer.close({ remove: true });
    }
  });
});
