import { describe, expect, it } from 'vitest';
import { LOCAL_USER, userIdForSessionKey } from '../../src/settings/index.js';

describe('userIdForSessionKey', () => {
  it('is the local user when auth is disabled', () => {
    expect(userIdForSessionKey(null)).toBe('local');
    expect(LOCAL_USER).toBe('local');
  });

  it('is stable, distinct per key, and does not contain the key', () => {
    const key = 'session-key-PLAINTEXT-abcdef';
    const id = userIdForSessionKey(key);
    expect(id).toMatch(/^key-[0-9a-f]{24}$/);
    expect(userIdForSessionKey(key)).toBe(id);
    expect(userIdForSessionKey(`${key}x`)).not.toBe(id);
    expect(id).not.toContain(key);
    expect(userIdForSessionKey('')).not.toBe(LOCAL_USER);
  });
});
