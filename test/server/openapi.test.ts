import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

type Schema = Record<string, unknown>;

describe('OpenAPI document', () => {
  let server: TestServer;
  let doc: {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, Schema>>;
    components: { schemas: Record<string, Schema> };
  };
  beforeAll(async () => {
    server = await startServer();
    doc = (await (await api(server, '/openapi.json', { key: null })).json()) as typeof doc;
  });
  afterAll(() => server.close({ remove: true }));

  it('is OpenAPI 3.1 with version 0.1.0', () => {
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.info.version).toBe('0.1.0');
  });

  it('has the Event union as a oneOf discriminated by kind over the 14 kinds', () => {
    const event = doc.components.schemas.Event as {
      oneOf: unknown[];
      discriminator: { propertyName: string };
    };
    expect(event.discriminator.propertyName).toBe('kind');
    expect(event.oneOf).toHaveLength(14);
  });

  it('documents every kind agentd stores or sends beyond the 14 in ServerEvent', () => {
    const kinds = (name: string) =>
      (doc.components.schemas[name] as { oneOf: { title: string }[] }).oneOf.map((v) => v.title);
    const server = doc.components.schemas.ServerEvent as { discriminator: { propertyName: string } };
    expect(server.discriminator.propertyName).toBe('kind');
    const extra = kinds('ServerEvent').filter((k) => !kinds('Event').includes(k));
    expect(extra.sort()).toEqual(
      ['HookExecutionEvent', 'InterruptEvent', 'ServerErrorEvent', 'StreamingDeltaEvent'].sort(),
    );
    expect(kinds('ServerEvent')).toEqual(expect.arrayContaining(kinds('Event')));
    const delta = (doc.components.schemas.ServerEvent as { oneOf: Schema[] }).oneOf.find(
      (v) => v.title === 'StreamingDeltaEvent',
    ) as { properties: Schema };
    expect(Object.keys(delta.properties).sort()).toEqual(
      ['content', 'id', 'kind', 'reasoning_content', 'source', 'timestamp'].sort(),
    );
  });

  it('documents the batch get with its JSON body, tag Events, and the settings routes', () => {
    const op = doc.paths['/api/conversations/{conversation_id}/events']?.get as Schema;
    expect(op.tags).toEqual(['Events']);
    expect(op.requestBody).toBeDefined();
    expect(doc.paths['/api/settings']?.post).toBeDefined();
    expect(doc.components.schemas.Settings).toBeDefined();
  });

  it('declares the session key on every operation but the public ones', () => {
    const global = (doc as unknown as { security: unknown }).security;
    expect(global).toEqual([{ APIKeyHeader: [] }, { HTTPBearer: [] }]);
    const publicPaths = ['/alive', '/health', '/ready', '/server_info'];
    let protectedOps = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (publicPaths.includes(path)) {
          expect(op.security, `${method} ${path}`).toEqual([]);
        } else {
          // No override: the global requirement applies.
          expect(op.security, `${method} ${path}`).toBeUndefined();
          protectedOps++;
        }
      }
    }
    expect(protectedOps).toBeGreaterThan(40);
  });

  it('serves an interactive docs page', async () => {
    const res = await api(server, '/docs/', { key: null });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<html');
  });
});
