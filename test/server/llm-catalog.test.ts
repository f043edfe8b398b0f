// /api/llm (OpenHands' agent server): the providers and models a settings form offers, in OpenHands'
// shapes (ProvidersResponse, ModelsResponse, VerifiedModelsResponse), and that each one offered is one
// agentd's router can call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routingProblems } from '../../src/llm/index.js';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

const getJson = async <T>(path: string): Promise<T> => {
  const res = await api(server, path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

describe('/api/llm', () => {
  it('lists providers, sorted: those with an endpoint of their own run with a key alone, the rest are reached at a base URL', async () => {
    const { providers } = await getJson<{ providers: string[] }>('/api/llm/providers');
    expect(providers).toEqual([...providers].sort());
    expect(providers).toEqual(
      expect.arrayContaining(['anthropic', 'openai', 'openhands', 'deepseek', 'gemini']),
    );
    // A provider listed by mistake (no endpoint agentd knows) would land among these and fail here.
    const needBaseUrl = providers.filter((p) => routingProblems({ model: `${p}/some-model` }).length > 0);
    expect(needBaseUrl).toEqual(['azure', 'hosted_vllm', 'litellm_proxy', 'ollama']);
    for (const provider of needBaseUrl)
      expect(
        routingProblems({ model: `${provider}/m`, base_url: 'http://127.0.0.1:9/v1' }),
        provider,
      ).toEqual([]);
  });

  it('lists models that run with a key alone, all or one provider’s, and the same by provider without prefixes', async () => {
    const { models } = await getJson<{ models: string[] }>('/api/llm/models');
    expect(models.length).toBeGreaterThan(0);
    expect(models).toEqual([...models].sort());
    for (const model of models) expect(routingProblems({ model }), model).toEqual([]);

    const { models: anthropic } = await getJson<{ models: string[] }>('/api/llm/models?provider=anthropic');
    expect(anthropic.length).toBeGreaterThan(0);
    expect(anthropic).toEqual(models.filter((m) => m.startsWith('anthropic/')));
    expect(await getJson('/api/llm/models?provider=nobody')).toEqual({ models: [] });

    const { models: byProvider } = await getJson<{ models: Record<string, string[]> }>(
      '/api/llm/models/verified',
    );
    const flattened = Object.entries(byProvider).flatMap(([provider, names]) =>
      names.map((n) => `${provider}/${n}`),
    );
    expect(flattened.sort()).toEqual(models);
    const { providers } = await getJson<{ providers: string[] }>('/api/llm/providers');
    for (const provider of Object.keys(byProvider)) expect(providers).toContain(provider);
  });

  it('refuses an over-long provider with a 422 and answers nobody without the key', async () => {
    const res = await api(server, `/api/llm/models?provider=${'x'.repeat(129)}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: unknown[] }).detail[0]).toMatchObject({
      loc: ['query', 'provider'],
    });
    const anonymous = await fetch(`${server.url}/api/llm/providers`);
    expect(anonymous.status).toBe(401);
  });
});
