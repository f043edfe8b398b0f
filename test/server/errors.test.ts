import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getWithBody } from '../support/http.js';
import { api, startServer } from '../support/server.js';

describe('unexpected errors', () => {
  it('become a 500 {detail, error_id} without a stack, and the server keeps serving', async () => {
    const server = await startServer();
    // A closed database makes every query throw: a real failure, not a stub.
    await server.store.close();
    const res = await getWithBody(`${server.url}/api/conversations/${randomUUID()}/events`, '[]', {
      'X-Session-API-Key': server.key,
    });
    expect(res.status).toBe(500);
    const body = res.json() as Record<string, unknown>;
    expect(body.detail).toBe('Internal Server Error');
    expect(body.error_id).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
    expect((await api(server, '/alive', { key: null })).status).toBe(200);
    await server.app.close();
  });
});
