// The SDK's view and PATCH on the service, over an in-memory store: one record behind both clients.
import { describe, expect, it } from 'vitest';
import { SecretBox, SettingsService } from '../../src/settings/index.js';
import { LocalLocks, type SettingsStore } from '../../src/store/index.js';

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

const KEY = 'sk-PLAINTEXT-SDK-KEY';

function service() {
  const store = new MemorySettingsStore();
  return { store, settings: new SettingsService(store, SecretBox.fromPassphrase('test passphrase')) };
}

describe('SettingsService, the SDK side', () => {
  it('keeps the stored key when a PATCH echoes a sealed value, even one sealed for another user', async () => {
    const { settings } = service();
    await settings.patch('alice', { agent_settings_diff: { llm: { api_key: KEY } } });
    await settings.patch('bob', { agent_settings_diff: { llm: { api_key: 'bob-key' } } });
    const bobSealed = (await settings.view('bob', 'encrypted')).agent_settings.llm.api_key as string;
    await settings.patch('alice', { agent_settings_diff: { llm: { api_key: bobSealed } } });
    expect((await settings.getEffective('alice'))?.llm_api_key).toBe(KEY);
    expect((await settings.view('alice', 'plaintext')).agent_settings.llm.api_key).toBe(KEY);
  });

  it('clears the key on null or blank', async () => {
    const { settings } = service();
    for (const cleared of [null, '', '  ']) {
      await settings.patch('u', { agent_settings_diff: { llm: { api_key: KEY } } });
      const view = await settings.patch('u', { agent_settings_diff: { llm: { api_key: cleared } } });
      expect(view.llm_api_key_is_set).toBe(false);
      expect(view.agent_settings.llm.api_key).toBeNull();
    }
  });

  it('stores nothing for a read: the defaults are answered, not written', async () => {
    const { store, settings } = service();
    const view = await settings.view('nobody', 'plaintext');
    expect(view.llm_api_key_is_set).toBe(false);
    expect(store.documents.size).toBe(0);
  });

  it("custom secrets are the record's: the runtime sees them, and a later POST keeps them", async () => {
    const { store, settings } = service();
    await settings.putSecret('u', { name: 'TOKEN', value: 'tok-PLAINTEXT', description: 'd' });
    expect(store.documents.get('u')).not.toContain('tok-PLAINTEXT');
    await settings.store('u', { llm_model: 'openai/gpt-4o' });
    const effective = await settings.getEffective('u');
    expect(effective?.secrets_store?.custom_secrets?.TOKEN).toEqual({
      secret: 'tok-PLAINTEXT',
      description: 'd',
    });
    expect(await settings.listSecrets('u')).toEqual([{ name: 'TOKEN', description: 'd' }]);
    expect(await settings.secretValue('u', 'TOKEN')).toBe('tok-PLAINTEXT');
    expect(await settings.secretValue('u', 'toString')).toBeNull();
    expect(await settings.deleteSecret('u', 'TOKEN')).toBe(true);
    expect(await settings.deleteSecret('u', 'TOKEN')).toBe(false);
    expect(await settings.secretValue('u', 'TOKEN')).toBeNull();
  });
});
