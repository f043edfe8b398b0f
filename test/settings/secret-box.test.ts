import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSecretBox, SecretBox, SecretKeyError } from '../../src/settings/index.js';

const PLAINTEXT = 'sk-PLAINTEXT-secret-ü-123';
const key = (byte: number) => Buffer.alloc(32, byte);

describe('SecretBox', () => {
  it('round-trips a value through AES-256-GCM in the v1:<iv>:<tag>:<ciphertext> format', () => {
    const box = new SecretBox(key(1));
    const sealed = box.encrypt(PLAINTEXT);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    const [, iv, tag] = sealed.split(':');
    expect(Buffer.from(iv!, 'base64')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64')).toHaveLength(16);
    expect(sealed).not.toContain(PLAINTEXT);
    expect(box.decrypt(sealed)).toBe(PLAINTEXT);
    expect(box.decrypt(box.encrypt(''))).toBe('');
    expect(SecretBox.isSealed(sealed)).toBe(true);
    expect(SecretBox.isSealed(PLAINTEXT)).toBe(false);
  });

  it('uses a fresh IV for every value', () => {
    const box = new SecretBox(key(1));
    const a = box.encrypt(PLAINTEXT);
    const b = box.encrypt(PLAINTEXT);
    expect(a).not.toBe(b);
    expect(a.split(':')[1]).not.toBe(b.split(':')[1]);
  });

  it('fails with a clear error, never garbage, under a wrong key', () => {
    const sealed = new SecretBox(key(1)).encrypt(PLAINTEXT);
    const wrong = new SecretBox(key(2));
    expect(() => wrong.decrypt(sealed)).toThrow(SecretKeyError);
    expect(() => wrong.decrypt(sealed)).toThrow(/secret key is not the one it was sealed with/);
  });

  it('detects an altered value and a value moved to another context', () => {
    const box = new SecretBox(key(1));
    const sealed = box.encrypt(PLAINTEXT, 'user-a');
    expect(box.decrypt(sealed, 'user-a')).toBe(PLAINTEXT);
    expect(() => box.decrypt(sealed, 'user-b')).toThrow(SecretKeyError);
    expect(() => box.decrypt(sealed)).toThrow(SecretKeyError);
    const [v, iv, tag, data] = sealed.split(':') as [string, string, string, string];
    const flipped = Buffer.from(data, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.decrypt([v, iv, tag, flipped.toString('base64')].join(':'), 'user-a')).toThrow(
      SecretKeyError,
    );
    // A shortened tag is refused, not accepted as a weaker check.
    const shortTag = Buffer.from(tag, 'base64').subarray(0, 4).toString('base64');
    expect(() => box.decrypt([v, iv, shortTag, data].join(':'), 'user-a')).toThrow(/auth tag length/);
  });

  it('refuses what is not a sealed value, without echoing it', () => {
    const box = new SecretBox(key(1));
    expect(() => box.decrypt(PLAINTEXT)).toThrow(SecretKeyError);
    try {
      box.decrypt(PLAINTEXT);
    } catch (error) {
      expect((error as Error).message).not.toContain(PLAINTEXT);
    }
    expect(() => box.decrypt('v2:a:b:c')).toThrow(/not a sealed secret/);
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(SecretKeyError);
  });
});

describe('loadSecretBox', () => {
  let dataDir: string;
  const warnings: string[] = [];
  const load = (env: Record<string, string | undefined> = {}) =>
    loadSecretBox({ dataDir, env, warn: (m) => warnings.push(m) });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'agentd-secret-'));
    warnings.length = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('derives the key from OH_SECRET_KEY: the same string opens what it sealed, on any machine', () => {
    const sealed = load({ OH_SECRET_KEY: 'correct horse battery staple' }).encrypt(PLAINTEXT);
    const otherDir = mkdtempSync(join(tmpdir(), 'agentd-secret-'));
    try {
      const again = loadSecretBox({
        dataDir: otherDir,
        env: { OH_SECRET_KEY: 'correct horse battery staple' },
      });
      expect(again.decrypt(sealed)).toBe(PLAINTEXT);
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
    expect(() => load({ OH_SECRET_KEY: 'another passphrase' }).decrypt(sealed)).toThrow(SecretKeyError);
    // No key file is written when the key comes from the environment.
    expect(() => statSync(join(dataDir, 'secret.key'))).toThrow();
  });

  it('otherwise creates <dataDir>/secret.key with mode 0600 and reuses it', () => {
    const sealed = load().encrypt(PLAINTEXT);
    const file = join(dataDir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(load().decrypt(sealed)).toBe(PLAINTEXT);
    expect(warnings).toEqual([]);
  });

  it('creates the data folder when it does not exist yet', () => {
    const nested = join(dataDir, 'a', 'b');
    const box = loadSecretBox({ dataDir: nested, env: {}, warn: () => {} });
    expect(box.decrypt(box.encrypt(PLAINTEXT))).toBe(PLAINTEXT);
    expect(statSync(join(nested, 'secret.key')).mode & 0o777).toBe(0o600);
  });

  it('repairs a key file readable by others to 0600, with a warning, and keeps its key', () => {
    const sealed = load().encrypt(PLAINTEXT);
    const file = join(dataDir, 'secret.key');
    chmodSync(file, 0o644);
    expect(load().decrypt(sealed)).toBe(PLAINTEXT);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/readable by other users \(mode 644\).*0600/);
  });

  it('refuses a key file that does not hold a 32-byte key', () => {
    writeFileSync(join(dataDir, 'secret.key'), 'too-short', { mode: 0o600 });
    expect(() => load()).toThrow(/does not hold a 32-byte base64 key/);
  });

  it('treats an empty OH_SECRET_KEY as unset', () => {
    const sealed = load({ OH_SECRET_KEY: '' }).encrypt(PLAINTEXT);
    expect(load().decrypt(sealed)).toBe(PLAINTEXT);
  });
});
