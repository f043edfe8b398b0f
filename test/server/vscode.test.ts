// /api/vscode and /api/desktop on every agent server (control plane or a sandbox's): no VS Code nor
// desktop here, answered as
// OpenHands' agent server answers when it has none to offer. The UI reads `url` (string or null):
// frontend/src/api/conversation-service/v1-conversation-service.api.ts (getVSCodeUrl).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

const servers: Record<string, TestServer> = {};
beforeAll(async () => {
  servers['control plane'] = await startServer();
  servers['agent server'] = await startServer({ controlPlane: false });
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.close({ remove: true });
});

describe.each(['control plane', 'agent server'])('/api/vscode on the %s', (which) => {
  const server = () => servers[which]!;

  it('GET /url answers no URL, with or without OpenHands’ query', async () => {
    for (const query of ['', '?base_url=http://localhost:8001&workspace_dir=/workspace/project']) {
      const res = await api(server(), `/api/vscode/url${query}`);
      expect(res.status, query).toBe(200);
      expect(await res.json()).toEqual({ url: null });
    }
  });

  it('GET /api/desktop/url answers no URL, with or without OpenHands’ query', async () => {
    for (const query of ['', '?base_url=http://localhost:8002']) {
      const res = await api(server(), `/api/desktop/url${query}`);
      expect(res.status, query).toBe(200);
      expect(await res.json()).toEqual({ url: null });
    }
  });

  it('GET /status says not enabled, not running, and why', async () => {
    const res = await api(server(), '/api/vscode/status');
    expect(res.status).toBe(200);
    const status = (await res.json()) as { message?: string };
    expect(status).toMatchObject({ running: false, enabled: false });
    expect(status.message).toMatch(/not available/);
  });

  it('needs the session key', async () => {
    for (const path of ['/api/vscode/url', '/api/vscode/status', '/api/desktop/url']) {
      const res = await api(server(), path, { key: null });
      expect(res.status, path).toBe(401);
    }
  });

  it('refuses an oversized query with a 422, not a 500', async () => {
    const res = await api(server(), `/api/vscode/url?base_url=${'x'.repeat(3000)}`);
    expect(res.status).toBe(422);
    expect(Array.isArray(((await res.json()) as { detail: unknown }).detail)).toBe(true);
  });
});
