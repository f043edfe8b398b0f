// /api/options on the control plane: the members OpenHands' web UI reads, and that each choice it
// offers is one agentd can run. Shapes: frontend/src/api/option-service/option.types.ts
// (GetConfigResponse) and option-service.api.ts (string[] lists).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzerFromSettings } from '../../src/conversation/start-request.js';
import { endpointOf, OPENHANDS_LLM_PROXY, priceOf, route, routingProblems } from '../../src/llm/index.js';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

const getJson = async <T = unknown>(path: string): Promise<T> => {
  const res = await api(server, path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

describe('GET /api/options/config', () => {
  it('is an oss server with every feature flag the UI reads, all off, and no telemetry key', async () => {
    const config = await getJson('/api/options/config');
    expect(config).toEqual({
      APP_MODE: 'oss',
      GITHUB_CLIENT_ID: '',
      POSTHOG_CLIENT_KEY: '',
      FEATURE_FLAGS: {
        ENABLE_BILLING: false,
        HIDE_LLM_SETTINGS: false,
        ENABLE_JIRA: false,
        ENABLE_JIRA_DC: false,
        ENABLE_LINEAR: false,
      },
    });
  });
});

describe('GET /api/options/models', () => {
  it('lists provider/model ids the UI groups into OpenAI, Anthropic and OpenHands, each runnable with a key alone', async () => {
    const models = await getJson<string[]>('/api/options/models');
    expect(models.length).toBeGreaterThan(0);
    expect(new Set(models).size).toBe(models.length);
    // The UI splits at the first "/" and groups by what comes before it.
    const providers = new Set(models.map((m) => m.split('/')[0]));
    expect([...providers].sort()).toEqual(['anthropic', 'openai', 'openhands']);
    for (const model of models) {
      const name = model.slice(model.indexOf('/') + 1);
      expect(name, model).not.toBe('');
      // No base URL needed (basic settings ask for none), the provider's own endpoint (OpenHands' LLM
      // proxy for its own provider), and a price.
      expect(routingProblems({ model }), model).toEqual([]);
      const provider = model.split('/')[0];
      if (provider === 'openhands') expect(endpointOf({ model }), model).toBe(OPENHANDS_LLM_PROXY);
      else expect(route({ model }).provider, model).toBe(provider);
      expect(priceOf(model), model).not.toBeNull();
      // The UI saves an OpenAI choice without its prefix: the bare name must reach OpenAI too.
      if (model.startsWith('openai/')) expect(route({ model: name }).provider, name).toBe('openai');
    }
  });
});

describe('GET /api/options/agents and /security-analyzers', () => {
  it('lists the one agent', async () => {
    expect(await getJson('/api/options/agents')).toEqual(['CodeActAgent']);
  });

  it('lists analyzers a conversation turns into a real analyzer (the UI adds "none" itself)', async () => {
    const analyzers = await getJson<string[]>('/api/options/security-analyzers');
    expect(analyzers).toContain('llm');
    for (const name of analyzers) expect(analyzerFromSettings(name), name).not.toBeNull();
  });
});

describe('access', () => {
  const paths = ['config', 'models', 'agents', 'security-analyzers'].map((p) => `/api/options/${p}`);

  it('needs the session key, as OpenHands does when one is set', async () => {
    for (const path of paths) {
      const res = await api(server, path, { key: null });
      expect(res.status, path).toBe(401);
      expect(await res.json()).toHaveProperty('detail');
    }
  });

  it('is not on an agent server without the control plane', async () => {
    const agent = await startServer({ controlPlane: false });
    try {
      for (const path of paths) expect((await api(agent, path)).status, path).toBe(404);
    } finally {
      await agent.close({ remove: true });
    }
  });
});
