import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/events/index.js';
import {
  CustomSecret,
  GETSettingsResponse,
  MCPConfig,
  ProviderToken,
  parseSettings,
  SettingsSchema,
  SettingsStoredResponse,
  UserSecrets,
} from '../../src/settings/index.js';

const issuesOf = (body: unknown) => {
  const result = parseSettings(body);
  if (result.ok) throw new Error('expected validation issues');
  return result.errors;
};

describe('Settings schemas', () => {
  it('carry a stable $id equal to their name', () => {
    const idOf = (schema: object) => (schema as { $id?: string }).$id;
    expect(idOf(SettingsSchema)).toBe('Settings');
    expect(idOf(GETSettingsResponse)).toBe('GETSettingsResponse');
    expect(idOf(SettingsStoredResponse)).toBe('SettingsStoredResponse');
    expect(idOf(MCPConfig)).toBe('MCPConfig');
    expect(idOf(UserSecrets)).toBe('UserSecrets');
    expect(idOf(ProviderToken)).toBe('ProviderToken');
    expect(idOf(CustomSecret)).toBe('CustomSecret');
  });

  it('can all be registered on one Ajv instance, as the server does', () => {
    const ajv = createAjv();
    for (const schema of [SettingsSchema, GETSettingsResponse, SettingsStoredResponse]) ajv.addSchema(schema);
    expect(ajv.getSchema('GETSettingsResponse')).toBeDefined();
    expect(ajv.getSchema('Settings')?.({ llm_model: 'x' })).toBe(true);
  });

  it('marks the secrets with the password format', () => {
    for (const key of ['llm_api_key', 'search_api_key', 'sandbox_api_key'] as const) {
      expect(SettingsSchema.properties[key]).toMatchObject({ format: 'password' });
    }
  });
});

describe('parseSettings', () => {
  it('fills every default of an empty body, null for the rest', () => {
    const result = parseSettings({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      enable_default_condenser: true,
      enable_sound_notifications: false,
      enable_proactive_conversation_starters: true,
      enable_solvability_analysis: true,
      language: null,
      llm_model: null,
      llm_api_key: null,
      max_iterations: null,
      condenser_max_size: null,
      mcp_config: null,
      git_user_email: null,
    });
  });

  it('fills the MCP server defaults (args, env, timeout), also inside the nullable mcp_config', () => {
    const result = parseSettings({
      mcp_config: {
        stdio_servers: [{ name: 'fs', command: 'node' }],
        shttp_servers: [{ url: 'http://127.0.0.1:9/mcp' }],
      },
    });
    expect(result.ok && result.value.mcp_config).toEqual({
      sse_servers: [],
      stdio_servers: [{ name: 'fs', command: 'node', args: [], env: {} }],
      shttp_servers: [{ url: 'http://127.0.0.1:9/mcp', timeout: 60 }],
    });
  });

  it('does not touch the value it is given', () => {
    const body = { mcp_config: { stdio_servers: [{ name: 'fs', command: 'node' }] }, junk: 1 };
    const copy = structuredClone(body);
    parseSettings(body);
    expect(body).toEqual(copy);
  });

  it('drops unknown members at every depth (OpenHands ignores them)', () => {
    const result = parseSettings({
      llm_model: 'openai/gpt-4o',
      llm_api_key_set: true,
      provider_tokens_set: { github: null },
      totally_unknown: { nested: 1 },
      secrets_store: {
        provider_tokens: { github: { token: 't', extra: 'x' } },
        custom_secrets: { A: { secret: 's', extra: 'x' } },
        extra: 'x',
      },
      mcp_config: {
        sse_servers: [{ url: 'http://a', extra: 'x' }],
        stdio_servers: [{ name: 'fs', command: 'node', extra: 'x' }],
        shttp_servers: [{ url: 'http://b', extra: 'x' }],
        extra: 'x',
      },
    });
    expect(result.ok).toBe(true);
    const text = JSON.stringify(result.ok && result.value);
    expect(text).not.toMatch(/extra|totally_unknown|_set/);
    expect(result.ok && result.value.llm_model).toBe('openai/gpt-4o');
  });

  it('reports bad types as FastAPI-style issues {loc, msg, type}', () => {
    expect(issuesOf({ max_iterations: 'x' })).toEqual([
      { loc: ['max_iterations'], msg: expect.any(String), type: 'type' },
    ]);
    expect(issuesOf({ enable_default_condenser: null })[0]).toMatchObject({
      loc: ['enable_default_condenser'],
      type: 'type',
    });
    expect(issuesOf({ llm_api_key: 42 })[0]?.loc).toEqual(['llm_api_key']);
    expect(issuesOf({ mcp_config: { stdio_servers: [{ name: 'fs' }] } })).toContainEqual(
      expect.objectContaining({ loc: ['mcp_config', 'stdio_servers', 0, 'command'], type: 'required' }),
    );
    expect(issuesOf({ secrets_store: { provider_tokens: { github: { token: 5 } } } })).toContainEqual(
      expect.objectContaining({ loc: ['secrets_store', 'provider_tokens', 'github', 'token'] }),
    );
  });

  it('bounds condenser_max_size at 20 or more (or null), as OpenHands does', () => {
    expect(issuesOf({ condenser_max_size: 5 })).toEqual([
      { loc: ['condenser_max_size'], msg: expect.stringContaining('20'), type: 'minimum' },
    ]);
    expect(issuesOf({ condenser_max_size: 20.5 })[0]?.loc).toEqual(['condenser_max_size']);
    expect(parseSettings({ condenser_max_size: 20 }).ok).toBe(true);
    expect(parseSettings({ condenser_max_size: null }).ok).toBe(true);
  });

  it('rejects a body that is not an object', () => {
    expect(issuesOf([])[0]?.type).toBe('type');
    expect(issuesOf('settings')[0]?.type).toBe('type');
  });
});
