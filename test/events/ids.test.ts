import { describe, expect, it } from 'vitest';
import { newEventId } from '../../src/events/index.js';

describe('newEventId', () => {
  it('gives UUIDv7s in creation order whose random bits never repeat, across refills of the random pool', () => {
    // 5,000 ids take the 4 KB pool of random bytes through several refills.
    const ids = Array.from({ length: 5000 }, () => newEventId());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    // The last 62 bits are random: drawn twice from the same pool bytes, two ids would share them.
    const randomParts = new Set(ids.map((id) => id.slice(19)));
    expect(randomParts.size).toBe(ids.length);
  });
});
