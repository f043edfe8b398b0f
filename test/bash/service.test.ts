// BashService and its event log with small limits: output cut into ordered chunks, output past the cap
// dropped and said, the oldest events evicted, cursors that survive eviction, shutdown ends commands.
import { StringDecoder } from 'node:string_decoder';
import { describe, expect, it, vi } from 'vitest';
import { BashEventLog } from '../../src/bash/event-log.js';
import { BashService, DEFAULT_BASH_LIMITS } from '../../src/bash/index.js';
import type { BashOutput } from '../../src/bash/schemas.js';

const U = 'user-a';
const outputsOf = (bash: BashService, commandId: string) =>
  bash.search({ commandId, limit: 100 }, U).items as BashOutput[];

describe('BashService', () => {
  it('cuts output into ordered chunks: full ones without exit code, then the rest with it', async () => {
    const bash = new BashService({ chunkChars: 10 });
    const last = await bash.execute({ command: 'printf "%025d" 0; printf "é%.0s" 1 2 3 >&2' }, U);
    const outputs = outputsOf(bash, last.command_id);
    expect(outputs.map((o) => o.order)).toEqual([0, 1, 2]);
    expect(outputs.slice(0, 2).map((o) => [o.stdout, o.exit_code])).toEqual([
      ['0000000000', null],
      ['0000000000', null],
    ]);
    // Multi-byte characters are decoded whole.
    expect(last).toMatchObject({ order: 2, stdout: '00000', stderr: 'ééé', exit_code: 0 });
    // The SDK's poll after order 0 gets the rest.
    const after = bash.search({ commandId: last.command_id, orderGt: 0, kind: 'BashOutput', limit: 100 }, U);
    expect(after.items.map((o) => (o as BashOutput).order)).toEqual([1, 2]);
  });

  it('keeps at most maxOutputChars of a command and says how much was dropped', async () => {
    const bash = new BashService({ maxOutputChars: 100 });
    const last = await bash.execute({ command: 'head -c 5000 /dev/zero | tr "\\0" x' }, U);
    expect(last.stdout).toBe('x'.repeat(100));
    expect(last.stderr).toBe('\n[agentd: 4900 more bytes of output were dropped]');
    expect(last.exit_code).toBe(0);
  });

  it('past maxOutputChars, counts the bytes it drops without decoding them', async () => {
    const write = vi.spyOn(StringDecoder.prototype, 'write');
    try {
      const bash = new BashService({ maxOutputChars: 100 });
      // 4 MiB of two-byte characters: 2 Mi characters, all but 100 of them (200 bytes) dropped.
      const last = await bash.execute({ command: 'head -c 2097152 /dev/zero | sed "s/\\x0/é/g"' }, U);
      expect(last.stdout).toBe('é'.repeat(100));
      expect(last.stderr).toBe(`\n[agentd: ${4 * 1024 * 1024 - 200} more bytes of output were dropped]`);
      // What reached the decoder: the reads until the cap was met (a pipe read is at most 64 KiB each).
      const decoded = write.mock.calls.reduce((sum, [data]) => sum + (data as Buffer).length, 0);
      expect(decoded).toBeLessThanOrEqual(2 * 64 * 1024);
    } finally {
      write.mockRestore();
    }
  });

  it('refuses commands past maxRunning; close() ends the running ones', async () => {
    const bash = new BashService({ maxRunning: 1 });
    const running = bash.execute({ command: 'sleep 600' }, U);
    expect(() => bash.start({ command: 'true' }, U)).toThrow(/Too many bash commands running/);
    await bash.close();
    const final = await running;
    expect(final.exit_code).toBe(-1);
    // Ended before or after it started: either way no timeout note, since the server stopped it.
    expect(final.stderr ?? '').not.toContain('timed out');
  });

  it('a reader past maxSubscribers is refused', () => {
    const bash = new BashService({ maxSubscribers: 1 });
    const off = bash.subscribe(() => {}, U);
    expect(bash.subscribe(() => {}, U)).toBeNull();
    off?.();
    expect(bash.subscribe(() => {}, U)).not.toBeNull();
  });
});

describe('BashEventLog', () => {
  const event = (n: number, stdout = '') =>
    ({
      id: n.toString(16).padStart(32, '0'),
      timestamp: `2026-01-01T00:00:00.${String(n).padStart(6, '0')}Z`,
      command_id: 'c'.repeat(32),
      order: n,
      exit_code: null,
      stdout,
      stderr: null,
      kind: 'BashOutput',
    }) as const;

  it('evicts the oldest past maxEvents or maxChars; a cursor survives eviction', () => {
    const log = new BashEventLog(3, 10, DEFAULT_BASH_LIMITS.maxPageBytes);
    for (const n of [1, 2, 3, 4]) log.append(event(n), U);
    expect(log.all(U).map((e) => e.id.slice(-1))).toEqual(['2', '3', '4']);
    expect(log.get(event(1).id, U)).toBeNull();
    const page = log.search({ limit: 1 }, U);
    expect(page.next_page_id).not.toBeNull();
    log.append(event(5, 'x'.repeat(8)), U);
    log.append(event(6, 'y'.repeat(8)), U); // 16 characters: the 8 of event 5 go
    expect(log.all(U).map((e) => e.id.slice(-1))).toEqual(['6']);
    // The cursor named an evicted event: the page goes on from there, no repeat, no 4xx.
    expect(log.search({ limit: 10, pageId: page.next_page_id! }, U).items.map((e) => e.id.slice(-1))).toEqual(
      ['6'],
    );
    expect(log.clear(U)).toBe(1);
    expect(log.size).toBe(0);
  });

  it('ends a page where its JSON would pass maxPageBytes; the cursor goes on exactly there', () => {
    // Room for three events without output; a NUL is 6 bytes of JSON (\u0000).
    const bound = 3 * (JSON.stringify(event(1)).length + 1) + 100;
    const log = new BashEventLog(100, 1_000_000, bound);
    for (const [i, n] of [50, 0, 0, 80, 0, 30, 30, 0].entries()) log.append(event(i + 1, '\0'.repeat(n)), U);
    const bytes = (items: unknown[]) =>
      items.reduce<number>((sum, e) => sum + JSON.stringify(e).length + 1, 0);
    for (const descending of [false, true]) {
      for (const limit of [100, 2]) {
        const seen: string[] = [];
        let pageId: string | undefined;
        do {
          const page = log.search({ limit, descending, pageId }, U);
          expect(page.items.length).toBeGreaterThan(0);
          // Within the bound, unless one event alone passes it.
          if (page.items.length > 1) expect(bytes(page.items)).toBeLessThanOrEqual(bound);
          seen.push(...page.items.map((e) => e.id));
          pageId = page.next_page_id ?? undefined;
        } while (pageId !== undefined);
        const ids = log.all(U).map((e) => e.id);
        expect(seen).toEqual(descending ? ids.reverse() : ids);
      }
    }
    // A batch get: within the bound, or one event alone; else refused.
    const id = (n: number) => event(n).id;
    expect(log.batch([id(4)], U)).toHaveLength(1);
    expect(log.batch([id(2), id(2), id(3)], U)).toHaveLength(3);
    expect(() => log.batch([id(1), id(1)], U)).toThrow(`add up to more than ${bound} bytes`);
  });

  it("keeps each user's events to that user: reads, pages and clear", () => {
    const log = new BashEventLog(10, 1000, DEFAULT_BASH_LIMITS.maxPageBytes);
    for (const n of [1, 2, 3, 4]) log.append(event(n), n % 2 ? 'a' : 'b');
    expect(log.all('a').map((e) => e.id.slice(-1))).toEqual(['1', '3']);
    expect(log.get(event(2).id, 'a')).toBeNull();
    expect(log.get(event(2).id, 'b')).not.toBeNull();
    expect(log.search({ limit: 10 }, 'b').items.map((e) => e.id.slice(-1))).toEqual(['2', '4']);
    expect(log.clear('a')).toBe(2);
    expect(log.all('b').map((e) => e.id.slice(-1))).toEqual(['2', '4']);
    expect(log.size).toBe(2);
  });
});
