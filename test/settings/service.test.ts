import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidSettingsError,
  SecretBox,
  SecretKeyError,
  type Settings,
  SettingsService,
} from '../../src/settings/index.js';
import { LocalLocks, openSqliteStore, type SettingsStore } from '../../src/store/index.js';

/** The SettingsStore port over a Map; `documents` lets the test read exactly what would be stored. */
class MemorySettingsStore implements SettingsStore {
  readonly documents = new Map<string, string>();
  async get(userId: string) {
    return this.documents.get(userId) ?? null;
  }
  async put(userId: string, document: string) {
    this.documents.set(userId, document);
  }
  private readonly locks = new LocalLocks();
  exclusive<T>(userId: string, work: () => Promise<T>) {
    return this.locks.run(userId, work);
  }
}

const SECRETS = {
  llm: 'sk-PLAINTEXT-LLM-KEY-1',
  search: 'tvly-PLAINTEXT-SEARCH-2',
  sandbox: 'sbx-PLAINTEXT-SANDBOX-3',
  github: 'ghp_PLAINTEXT_GITHUB_4',
  gitlab: 'glpat-PLAINTEXT-GITLAB-5',
  custom: 'PLAINTEXT-CUSTOM-6',
  mcp: 'PLAINTEXT-MCP-KEY-7',
};
const ALL_SECRETS = Object.values(SECRETS);

const full: Settings = {
  language: 'fr',
  agent: 'CodeActAgent',
  max_iterations: 42,
  security_analyzer: 'llm',
  confirmation_mode: true,
  llm_model: 'openai/gpt-4o',
  llm_api_key: SECRETS.llm,
  llm_base_url: 'http://127.0.0.1:9/v1',
  remote_runtime_resource_factor: 2,
  secrets_store: {
    provider_tokens: {
      github: { token: SECRETS.github, host: 'github.com' },
      gitlab: { token: SECRETS.gitlab, host: null, user_id: 'u-1' },
    },
    custom_secrets: { MY_SECRET: { secret: SECRETS.custom, description: 'a test secret' } },
  },
  enable_default_condenser: false,
  enable_sound_notifications: true,
  enable_proactive_conversation_starters: false,
  enable_solvability_analysis: false,
  user_consents_to_analytics: true,
  sandbox_base_container_image: 'python:3.12',
  sandbox_runtime_container_image: 'runtime:1',
  mcp_config: {
    sse_servers: [{ url: 'http://127.0.0.1:9/sse', api_key: SECRETS.mcp }],
    stdio_servers: [{ name: 'fs', command: 'node', args: ['x.js'], env: { A: '1' } }],
    shttp_servers: [{ url: 'http://127.0.0.1:9/mcp', api_key: null, timeout: 30 }],
  },
  search_api_key: SECRETS.search,
  sandbox_api_key: SECRETS.sandbox,
  max_budget_per_task: 1.5,
  condenser_max_size: 120,
  email: 'a@example.com',
  email_verified: true,
  git_user_name: 'Ada',
  git_user_email: 'ada@example.com',
};

let store: MemorySettingsStore;
let service: SettingsService;
const box = new SecretBox(Buffer.alloc(32, 7));

beforeEach(() => {
  store = new MemorySettingsStore();
  service = new SettingsService(store, box);
});

const effective = async (userId = 'u') => (await service.getEffective(userId))!;

describe('SettingsService: storage', () => {
  it('answers null (the server says 404) before anything is stored', async () => {
    expect(await service.get('u')).toBeNull();
    expect(await service.getEffective('u')).toBeNull();
  });

  it('never puts a secret in clear into the stored document', async () => {
    await service.store('u', full);
    const document = store.documents.get('u')!;
    for (const secret of ALL_SECRETS) expect(document).not.toContain(secret);
    const parsed = JSON.parse(document) as Settings;
    expect(SecretBox.isSealed(parsed.llm_api_key!)).toBe(true);
    expect(SecretBox.isSealed(parsed.secrets_store!.provider_tokens!.github!.token!)).toBe(true);
    expect(SecretBox.isSealed(parsed.secrets_store!.custom_secrets!.MY_SECRET!.secret!)).toBe(true);
    expect(SecretBox.isSealed(parsed.mcp_config!.sse_servers![0]!.api_key!)).toBe(true);
    // The rest is stored as given.
    expect(parsed.llm_model).toBe('openai/gpt-4o');
    expect(parsed.mcp_config!.stdio_servers).toEqual(full.mcp_config!.stdio_servers);
  });

  it('round-trips every secret through encryption for the runtime (getEffective)', async () => {
    await service.store('u', full);
    const settings = await effective();
    expect(settings.llm_api_key).toBe(SECRETS.llm);
    expect(settings.search_api_key).toBe(SECRETS.search);
    expect(settings.sandbox_api_key).toBe(SECRETS.sandbox);
    expect(settings.secrets_store!.provider_tokens).toEqual({
      github: { token: SECRETS.github, host: 'github.com' },
      gitlab: { token: SECRETS.gitlab, host: null, user_id: 'u-1' },
    });
    expect(settings.secrets_store!.custom_secrets).toEqual({
      MY_SECRET: { secret: SECRETS.custom, description: 'a test secret' },
    });
    expect(settings.mcp_config!.sse_servers![0]!.api_key).toBe(SECRETS.mcp);
    expect(settings).toMatchObject({ ...full, secrets_store: expect.anything() });
  });

  it('gives a clear error naming the member, not the value, under a wrong key', async () => {
    await service.store('u', full);
    const other = new SettingsService(store, new SecretBox(Buffer.alloc(32, 8)));
    await expect(other.getEffective('u')).rejects.toThrow(SecretKeyError);
    await expect(other.getEffective('u')).rejects.toThrow(/llm_api_key: cannot decrypt/);
    // GET needs no key: it only says which secrets are set.
    expect((await other.get('u'))?.llm_api_key_set).toBe(true);
  });

  it("binds sealed values to their user: one copied into another user's document does not open", async () => {
    await service.store('alice', { llm_api_key: SECRETS.llm });
    store.documents.set('mallory', store.documents.get('alice')!);
    await expect(service.getEffective('mallory')).rejects.toThrow(SecretKeyError);
  });

  it('keeps users apart', async () => {
    await service.store('alice', full);
    await service.store('bob', { llm_model: 'openai/bob' });
    expect((await effective('bob')).llm_api_key).toBeNull();
    expect((await effective('alice')).llm_model).toBe('openai/gpt-4o');
  });

  it('neither stores nor echoes unknown members', async () => {
    await service.store('u', {
      ...full,
      junk: 'x',
      llm_api_key_set: false,
      mcp_config: { sse_servers: [{ url: 'http://a', extra: 'x' }] },
    } as unknown as Settings);
    expect(store.documents.get('u')).not.toMatch(/junk|extra|_set/);
    const got = await service.get('u');
    expect(got).not.toHaveProperty('junk');
    expect(JSON.stringify(got)).not.toContain('extra');
  });

  it('refuses a body that is not a Settings record (defence behind the route validation)', async () => {
    const bad = { max_iterations: 'x' } as unknown as Settings;
    await expect(service.store('u', bad)).rejects.toThrow(InvalidSettingsError);
    await expect(service.store('u', bad)).rejects.toMatchObject({
      issues: [{ loc: ['max_iterations'], type: 'type' }],
    });
    expect(store.documents.size).toBe(0);
  });
});

describe('SettingsService: the GET projection', () => {
  it('hides every secret and sets the *_set flags', async () => {
    await service.store('u', full);
    const got = (await service.get('u'))!;
    const text = JSON.stringify(got);
    for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toContain('v1:'); // not even sealed
    expect(got.llm_api_key).toBeNull();
    expect(got.search_api_key).toBeNull();
    expect(got.sandbox_api_key).toBeNull();
    expect(got.secrets_store).toEqual({ provider_tokens: {} });
    expect(got.mcp_config!.sse_servers![0]).toEqual({ url: 'http://127.0.0.1:9/sse', api_key: null });
    expect(got.llm_api_key_set).toBe(true);
    expect(got.search_api_key_set).toBe(true);
    expect(got.provider_tokens_set).toEqual({ github: 'github.com', gitlab: null });
    expect(got).toMatchObject({
      language: 'fr',
      max_iterations: 42,
      llm_model: 'openai/gpt-4o',
      condenser_max_size: 120,
      enable_default_condenser: false,
    });
  });

  it('has every member, with defaults, and false flags when no secret is set', async () => {
    await service.store('u', { llm_model: 'openai/gpt-4o' });
    expect(await service.get('u')).toEqual({
      language: null,
      agent: null,
      max_iterations: null,
      security_analyzer: null,
      confirmation_mode: null,
      llm_model: 'openai/gpt-4o',
      llm_api_key: null,
      llm_base_url: null,
      remote_runtime_resource_factor: null,
      secrets_store: { provider_tokens: {} },
      enable_default_condenser: true,
      enable_sub_agents: false,
      enable_sound_notifications: false,
      enable_proactive_conversation_starters: true,
      enable_solvability_analysis: true,
      user_consents_to_analytics: null,
      sandbox_base_container_image: null,
      sandbox_runtime_container_image: null,
      mcp_config: null,
      search_api_key: null,
      sandbox_api_key: null,
      max_budget_per_task: null,
      condenser_max_size: null,
      email: null,
      email_verified: null,
      git_user_name: null,
      git_user_email: null,
      llm_api_key_set: false,
      search_api_key_set: false,
      provider_tokens_set: {},
    });
  });
});

describe('SettingsService: POST semantics', () => {
  beforeEach(() => service.store('u', full));

  it.each([
    ['llm_api_key', SECRETS.llm],
    ['llm_model', 'openai/gpt-4o'],
    ['llm_base_url', 'http://127.0.0.1:9/v1'],
    ['search_api_key', SECRETS.search],
    ['sandbox_api_key', SECRETS.sandbox],
    ['user_consents_to_analytics', true],
  ] as const)('keeps the stored %s when the new value is null or absent', async (key, stored) => {
    await service.store('u', { [key]: null });
    expect((await effective())[key]).toBe(stored);
    await service.store('u', {});
    expect((await effective())[key]).toBe(stored);
  });

  it('replaces a kept member when a value is given', async () => {
    await service.store('u', {
      llm_api_key: 'sk-new',
      llm_model: 'anthropic/claude',
      llm_base_url: 'http://b',
      search_api_key: 'search-new',
      sandbox_api_key: 'sandbox-new',
      user_consents_to_analytics: false,
    });
    expect(await effective()).toMatchObject({
      llm_api_key: 'sk-new',
      llm_model: 'anthropic/claude',
      llm_base_url: 'http://b',
      search_api_key: 'search-new',
      sandbox_api_key: 'sandbox-new',
      user_consents_to_analytics: false,
    });
  });

  it('clears the LLM key on an empty or whitespace-only string (OpenHands stores it as null)', async () => {
    await service.store('u', { llm_api_key: '' });
    expect((await effective()).llm_api_key).toBeNull();
    expect((await service.get('u'))?.llm_api_key_set).toBe(false);
    await service.store('u', { llm_api_key: 'sk-again' });
    await service.store('u', { llm_api_key: '   ' });
    expect((await effective()).llm_api_key).toBeNull();
  });

  it('keeps the search and sandbox keys on an empty or whitespace-only string (nothing lost)', async () => {
    await service.store('u', { search_api_key: '', sandbox_api_key: '  ' });
    expect(await effective()).toMatchObject({
      search_api_key: SECRETS.search,
      sandbox_api_key: SECRETS.sandbox,
    });
  });

  it('stores blank keys as null when nothing was stored before', async () => {
    await service.store('fresh', { llm_api_key: ' ', search_api_key: '', sandbox_api_key: '\t' });
    expect(await effective('fresh')).toMatchObject({
      llm_api_key: null,
      search_api_key: null,
      sandbox_api_key: null,
    });
    expect(store.documents.get('fresh')).not.toContain('v1:');
  });

  it('replaces every other member wholesale: omitted ones fall back to their defaults', async () => {
    await service.store('u', { language: 'de' });
    const got = await effective();
    expect(got).toMatchObject({
      language: 'de',
      agent: null,
      max_iterations: null,
      security_analyzer: null,
      confirmation_mode: null,
      remote_runtime_resource_factor: null,
      enable_default_condenser: true,
      enable_sound_notifications: false,
      enable_proactive_conversation_starters: true,
      enable_solvability_analysis: true,
      sandbox_base_container_image: null,
      sandbox_runtime_container_image: null,
      mcp_config: null,
      max_budget_per_task: null,
      condenser_max_size: null,
      email: null,
      email_verified: null,
      git_user_name: null,
      git_user_email: null,
    });
    // ... while the kept members and the secrets stay.
    expect(got).toMatchObject({ llm_model: 'openai/gpt-4o', llm_api_key: SECRETS.llm });
    expect(got.secrets_store!.provider_tokens!.github!.token).toBe(SECRETS.github);
  });

  it('keeps all provider tokens and custom secrets when a body leaves them out, or sends GET’s {provider_tokens: {}}', async () => {
    const before = (await effective()).secrets_store;
    await service.store('u', { language: 'de' });
    expect((await effective()).secrets_store).toEqual(before);
    const got = (await service.get('u'))!;
    await service.store('u', got as Settings); // a client's GET → edit → POST round trip
    expect((await effective()).secrets_store).toEqual(before);
    expect(await effective()).toMatchObject({ llm_api_key: SECRETS.llm, search_api_key: SECRETS.search });
  });

  it('keeps a provider token or custom secret whose new value is null or empty, updating the rest', async () => {
    await service.store('u', {
      secrets_store: {
        provider_tokens: { github: { token: '', host: 'github.example.com' }, gitlab: { token: null } },
        custom_secrets: { MY_SECRET: { secret: null, description: 'renamed' } },
      },
    });
    const secrets = (await effective()).secrets_store!;
    expect(secrets.provider_tokens).toEqual({
      github: { token: SECRETS.github, host: 'github.example.com' },
      gitlab: { token: SECRETS.gitlab, host: null, user_id: 'u-1' },
    });
    expect(secrets.custom_secrets).toEqual({ MY_SECRET: { secret: SECRETS.custom, description: 'renamed' } });
  });

  it('adds and replaces entries, and removes an entry sent as null', async () => {
    await service.store('u', {
      secrets_store: {
        provider_tokens: { github: null, bitbucket: { token: 'bb-token' } },
        custom_secrets: { MY_SECRET: { secret: 'new-value' }, OTHER: { secret: 'other' } },
      },
    });
    const secrets = (await effective()).secrets_store!;
    expect(secrets.provider_tokens).toEqual({
      gitlab: { token: SECRETS.gitlab, host: null, user_id: 'u-1' },
      bitbucket: { token: 'bb-token' },
    });
    expect(secrets.custom_secrets).toEqual({
      MY_SECRET: { secret: 'new-value', description: 'a test secret' },
      OTHER: { secret: 'other' },
    });
    expect((await service.get('u'))?.provider_tokens_set).toEqual({ gitlab: null, bitbucket: null });
  });

  it('drops a new entry that has no value to keep', async () => {
    await service.store('u', {
      secrets_store: {
        provider_tokens: { azure_devops: { token: '', host: 'dev.azure.com' } },
        custom_secrets: { EMPTY: { secret: '  ' } },
      },
    });
    const secrets = (await effective()).secrets_store!;
    expect(secrets.provider_tokens).not.toHaveProperty('azure_devops');
    expect(secrets.custom_secrets).not.toHaveProperty('EMPTY');
  });

  it('treats __proto__ as a plain secret name', async () => {
    await service.store('u', JSON.parse('{"secrets_store":{"custom_secrets":{"__proto__":{"secret":"p"}}}}'));
    const custom = (await effective()).secrets_store!.custom_secrets!;
    expect(Object.getOwnPropertyNames(custom)).toContain('__proto__');
    expect(Object.getPrototypeOf(custom)).toBe(Object.prototype);
  });

  it('replaces mcp_config but keeps a hidden server api_key for the same url', async () => {
    const got = (await service.get('u'))!; // api keys are null here
    await service.store('u', {
      mcp_config: {
        ...got.mcp_config!,
        sse_servers: [...got.mcp_config!.sse_servers!, { url: 'http://other/sse', api_key: 'k2' }],
      },
    });
    const mcp = (await effective()).mcp_config!;
    expect(mcp.sse_servers).toEqual([
      { url: 'http://127.0.0.1:9/sse', api_key: SECRETS.mcp },
      { url: 'http://other/sse', api_key: 'k2' },
    ]);
    expect(mcp.stdio_servers).toEqual(full.mcp_config!.stdio_servers);
    await service.store('u', {
      mcp_config: { sse_servers: [{ url: 'http://127.0.0.1:9/sse', api_key: 'k3' }] },
    });
    expect((await effective()).mcp_config).toEqual({
      sse_servers: [{ url: 'http://127.0.0.1:9/sse', api_key: 'k3' }],
      stdio_servers: [],
      shttp_servers: [],
    });
  });
});

describe('SettingsService over the SQLite store', () => {
  it('leaves no secret in clear in the database files (main file and WAL)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-settings-'));
    try {
      const sqlite = openSqliteStore({ path: join(dir, 'agentd.db') });
      const onDisk = new SettingsService(sqlite.settings, box);
      await onDisk.store('u', full);
      await onDisk.store('u', { ...full, llm_api_key: null, language: 'de' });
      const grep = () => {
        const files = readdirSync(dir).filter((f) => f.startsWith('agentd.db'));
        expect(files).toContain('agentd.db');
        for (const file of files) {
          const bytes = readFileSync(join(dir, file)).toString('latin1');
          for (const secret of ALL_SECRETS) expect(bytes, `${file} holds ${secret}`).not.toContain(secret);
        }
        return files;
      };
      expect(grep()).toContain('agentd.db-wal'); // while open, the rows sit in the WAL
      expect((await onDisk.getEffective('u'))?.llm_api_key).toBe(SECRETS.llm);
      await sqlite.close();
      grep(); // and after the checkpoint on close
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
