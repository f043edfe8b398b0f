// A server leaves nothing behind in the temp folder: the real binary, given a temp folder of its
// own, runs a conversation that uses the terminal and the browser (and its warm spare sandbox
// starts), and after SIGTERM (or SIGINT) it exits 0 and the folder is empty. Nor does a client hold
// a stop: neither a WebSocket peer that never answers the close nor a download no longer read.
import { readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { SHUTDOWN_GRACE_MS } from '../../src/server/shutdown-grace.js';
import { runCli } from '../support/cli.js';
import { allEvents, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { type TestServer, tempDir } from '../support/server.js';
import { connect } from '../support/ws.js';

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

describe('shutdown with WebSocket readers', () => {
  it('tells each reader the server is going away (1001) and does not wait on one that never answers', async () => {
    const cli = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-data-')], {
      env: { OH_SESSION_API_KEYS_0: 'shutdown-key' },
    });
    const server = { url: cli.url, key: 'shutdown-key' } as TestServer;
    const { id } = await startConversation(server, llm, [
      { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
    ]);
    const path = `/sockets/events/${id}?session_api_key=shutdown-key`;
    const reader = await connect(`${cli.url.replace('http', 'ws')}${path}`);
    // A peer that completes the handshake, then reads nothing and never answers a close frame.
    const silent = createConnection(Number(new URL(cli.url).port), '127.0.0.1');
    silent.write(
      `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    const upgraded = new Promise<string>((resolve) =>
      silent.once('data', (d) => resolve(d.toString('latin1'))),
    );
    expect(await upgraded).toMatch(/^HTTP\/1\.1 101/);
    await reader.next((f) => (f as { kind?: string }).kind === 'ConversationStateUpdateEvent');

    // ws waits 30 s for a close frame's answer by default: the exit came that much later.
    const exited = cli.stop();
    const bound = new Promise((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000));
    expect(await Promise.race([exited, bound])).toBe(0);
    expect(await reader.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    silent.destroy();
  }, 30_000);
});

describe('shutdown with requests in flight', () => {
  it(`closes a download whose client stopped reading ${SHUTDOWN_GRACE_MS / 1000} s after SIGTERM, and exits`, async () => {
    const dataDir = tempDir('agentd-data-');
    const big = join(dataDir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 200 * 2 ** 20); // more than the socket buffers hold
    const cli = await runCli(['serve', '--port', '0', '--data-dir', dataDir], {
      env: { OH_SESSION_API_KEYS_0: 'shutdown-key' },
    });
    const client = createConnection(Number(new URL(cli.url).port), '127.0.0.1');
    client.write(
      `GET /api/file/download?path=${encodeURIComponent(big)} HTTP/1.1\r\nHost: x\r\n` +
        'X-Session-API-Key: shutdown-key\r\n\r\n',
    );
    let received = 0;
    await new Promise<void>((resolve) =>
      client.on('data', (chunk) => {
        received += chunk.length;
        if (received > 2 ** 20) {
          client.pause(); // and never reads again
          resolve();
        }
      }),
    );
    // Before, the exit waited for the download to end: never, with this client.
    const exited = cli.stop();
    const bound = new Promise((resolve) =>
      setTimeout(() => resolve('still running'), SHUTDOWN_GRACE_MS + 15_000),
    );
    expect(await Promise.race([exited, bound])).toBe(0);
    expect(cli.output()).toContain('requests still in flight at shutdown');
    client.destroy();
  }, 60_000);
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
