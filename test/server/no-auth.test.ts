// A server without keys (--no-auth, the real binary) answers this machine's programs but not the web
// pages its user has open: a page on another origin cannot open the bash socket (and run commands) nor
// post to a route, and a DNS-rebinding page, which reaches 127.0.0.1 under its own name, is refused.
// What a page cannot read anyway (a GET) and the public routes stay open; programs send no Origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli } from '../support/cli.js';
import { rawRequest } from '../support/http.js';
import { tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

let cli: RunningCli;
const evil = 'http://evil.example';
const command = (headers: Record<string, string>) =>
  rawRequest(cli.url, {
    method: 'POST',
    path: '/api/bash/execute_bash_command',
    headers,
    body: JSON.stringify({ command: 'echo ran' }),
  });

beforeAll(async () => {
  cli = await runCli(['serve', '--no-auth', '--port', '0', '--data-dir', tempDir('agentd-no-auth-')]);
});
afterAll(async () => {
  await cli?.stop();
});

describe('a server without keys', () => {
  it("refuses a page on another origin the bash socket and a POST, and takes its own page's", async () => {
    const socketUrl = wsUrl(cli.url, '/sockets/bash-events');
    await expect(connect(socketUrl, { Origin: evil })).rejects.toThrow(/401/);
    await expect(connect(socketUrl, { Origin: 'null' })).rejects.toThrow(/401/);
    const own = await connect(socketUrl, { Origin: cli.url });
    own.close();
    const program = await connect(socketUrl);
    program.close();

    const refused = await command({ Origin: evil });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).detail).toContain(`a page on ${evil} may not call it`);
    expect((await command({ Origin: cli.url })).status).toBe(200);
    expect((await command({})).status).toBe(200);
    // A GET's answer is not the page's to read: it is answered.
    const read = await rawRequest(cli.url, {
      method: 'GET',
      path: '/api/settings',
      headers: { Origin: evil },
    });
    expect(read.status).toBe(200);
  });

  it('answers only requests addressed to loopback, but its public routes to anyone', async () => {
    const rebound = { Host: `rebind.evil.example:${new URL(cli.url).port}` };
    const settings = await rawRequest(cli.url, { method: 'GET', path: '/api/settings', headers: rebound });
    expect(settings.status).toBe(401);
    expect(JSON.parse(settings.text).detail).toContain('only requests addressed to localhost');
    expect((await command(rebound)).status).toBe(401);
    expect((await rawRequest(cli.url, { method: 'GET', path: '/health', headers: rebound })).status).toBe(
      200,
    );
    for (const host of ['localhost', '127.0.0.2', '[::1]', 'agentd.localhost'])
      expect(
        (await rawRequest(cli.url, { method: 'GET', path: '/api/settings', headers: { Host: `${host}:1` } }))
          .status,
        host,
      ).toBe(200);
  });
});
