// A server leaves nothing behind in the temp folder: the real binary, given a temp folder of its
// own, runs a conversation that uses the terminal and the browser (and its warm spare sandbox
// starts), and after SIGTERM (or SIGINT) it exits 0 and the folder is empty.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { runCli } from '../support/cli.js';
import { allEvents, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

describe('clean shutdown', () => {
  // SIGINT too: Playwright's own handler used to exit the process (130) before the server had closed.
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'leaves no new entries in the temp folder after %s',
    async (signal) => {
      const tmp = tempDir('agentd-tmpdir-');
      const cli = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-data-')], {
        env: { TMPDIR: tmp, OH_SESSION_API_KEYS_0: 'shutdown-key' },
      });
      try {
        const server = { url: cli.url, key: 'shutdown-key' } as TestServer;
        const { id } = await startConversation(
          server,
          llm,
          [
            { toolCalls: [{ name: 'terminal', arguments: { command: 'echo "tmp is $TMPDIR"' } }] },
            { toolCalls: [{ name: 'browser_navigate', arguments: { url: `${llm.url}/` } }] },
            { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
          ],
          { tools: ['terminal', 'browser_navigate'] },
        );
        await waitForStatus(server, id, ['finished']);
        const observations = (await allEvents(server, id)).filter((e) => e.kind === 'ObservationEvent');
        expect(JSON.stringify(observations[0])).toContain(`tmp is ${tmp}`);
        expect(JSON.stringify(observations[1])).toContain('Navigated to');
        // The browser keeps a profile in the temp folder while it runs.
        expect(readdirSync(tmp).length).toBeGreaterThan(0);
      } finally {
        expect(await cli.stop(signal)).toBe(0);
      }
      expect(readdirSync(tmp)).toEqual([]);
    },
    // A server, a warm spare sandbox and Chromium start and stop: slow on a busy machine.
    60_000,
  );
});

describe('resource settings', () => {
  it('reads the terminal idle time and the live conversation cap from the environment', () => {
    const dataDir = tempDir('agentd-config-');
    const defaults = resolveConfig({ dataDir, auth: false }, {});
    expect([defaults.terminalIdleSeconds, defaults.maxLiveConversations]).toEqual([60, 64]);
    const set = resolveConfig(
      { dataDir, auth: false },
      { AGENTD_TERMINAL_IDLE_SECONDS: '2.5', AGENTD_MAX_LIVE_CONVERSATIONS: '8' },
    );
    expect([set.terminalIdleSeconds, set.maxLiveConversations]).toEqual([2.5, 8]);
    expect(() => resolveConfig({ dataDir, auth: false }, { AGENTD_TERMINAL_IDLE_SECONDS: '0' })).toThrow(
      ConfigError,
    );
    expect(() => resolveConfig({ dataDir, auth: false }, { AGENTD_MAX_LIVE_CONVERSATIONS: '1.5' })).toThrow(
      /AGENTD_MAX_LIVE_CONVERSATIONS/,
    );
  });
});
