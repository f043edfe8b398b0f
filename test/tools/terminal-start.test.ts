// Shells start a few at a time (the spawn blocks the event loop): a crowd of terminals started at
// once all get their shell and run their command, and one closed while waiting for its turn starts
// no shell at all.
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalSession } from '../../src/tools/terminal/session.js';
import { tempDir } from '../support/server.js';

const sessions: TerminalSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const session = () => {
  const s = new TerminalSession(tempDir('agentd-start-'), {});
  sessions.push(s);
  return s;
};

describe('terminal start', () => {
  it('starts a crowd of shells, each running its own command', async () => {
    const crowd = Array.from({ length: 12 }, session);
    const results = await Promise.all(
      crowd.map((s, i) => s.run(`echo shell-${i}\n`, { hardTimeoutMs: 20_000, noChangeTimeoutMs: 20_000 })),
    );
    expect(results.map((r) => r.output.trim())).toEqual(crowd.map((_, i) => `shell-${i}`));
    expect(crowd.every((s) => s.alive)).toBe(true);
  });

  it('starts no shell for a terminal closed while it waits for its turn', async () => {
    const crowd = Array.from({ length: 12 }, session);
    const started = crowd.map((s) =>
      s.start().then(
        () => 'started' as const,
        () => 'refused' as const,
      ),
    );
    const last = crowd.at(-1)!;
    await last.close();
    expect(await started.at(-1)).toBe('refused');
    expect(last.alive).toBe(false);
    await Promise.all(started);
  });
});
