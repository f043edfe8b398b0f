// Request logs: one line per request, secrets redacted, JSON for machines and short lines for a
// terminal. The options function is driven through a real Fastify app, then the real binary.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { type LogOutput, loggerOptions, RequestLogController } from '../../src/server/logging.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** A Fastify app whose request log goes to `log()`, with the given output. */
function loggedApp(output: Omit<LogOutput, 'destination'>) {
  let text = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const app = Fastify({
    logger: loggerOptions({ level: 'info' }, { ...output, destination }),
    logController: new RequestLogController(),
  });
  return { app, log: () => text };
}

/** Serves GET /hello with the given log output, sends one request carrying secrets, returns what was logged. */
async function logOfOneRequest(output: Omit<LogOutput, 'destination'>): Promise<string> {
  const { app, log } = loggedApp(output);
  app.get('/hello', async () => ({ hello: 'world' }));
  await app.ready();
  const res = await app.inject({
    url: '/hello?session_api_key=query-secret',
    headers: { 'x-session-api-key': 'header-secret', authorization: 'Bearer bearer-secret' },
  });
  expect(res.statusCode).toBe(200);
  await app.close();
  return log().replace(ANSI, '');
}

function expectNoSecret(text: string): void {
  for (const secret of ['query-secret', 'header-secret', 'bearer-secret']) expect(text).not.toContain(secret);
}

describe('request logs', () => {
  it('are one JSON line per request when the output is not a terminal', async () => {
    const text = await logOfOneRequest({ tty: false });
    expectNoSecret(text);
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/hello?…' },
      res: { statusCode: 200 },
      msg: expect.stringMatching(/^GET \/hello\?… 200 \d+ms$/),
    });
    expect(typeof entry.responseTime).toBe('number');
  });

  it("leave out a workspace link's credential (it opens the workspace)", async () => {
    const { app, log } = loggedApp({ tty: false });
    app.get('/api/conversations/:id/workspace/*', async () => 'page');
    await app.ready();
    await app.inject({ url: '/api/conversations/c1/workspace/~abc.link-secret/report/page.html' });
    // The router reads %7E as ~ (and %77 as w): the link is found as it reads it.
    await app.inject({ url: '/api/conversations/c1/%77orkspace/%7Eabc.encoded-secret/page%0A.html' });
    await app.close();
    expect(log()).not.toContain('link-secret');
    expect(log()).not.toContain('encoded-secret');
    const urls = log()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).req.url);
    expect(urls).toEqual([
      '/api/conversations/c1/workspace/~…/report/page.html',
      '/api/conversations/c1/workspace/~…/page?.html',
    ]);
  });

  it('are one short human line per request on a terminal', async () => {
    const text = await logOfOneRequest({ tty: true });
    expectNoSecret(text);
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/hello\?… 200 \d+ms$/);
  });

  it('are JSON lines from the binary when stdout is a pipe, at the level asked for', async () => {
    const dataDir = tempDir('agentd-logs-');
    const cli = await runCli(['--port', '0', '--data-dir', dataDir], { env: { SESSION_API_KEY: 'k' } });
    try {
      await fetch(`${cli.url}/alive?session_api_key=query-secret`);
      // A HEAD, answered by the GET route (server/head.ts), is logged as the HEAD it was.
      await fetch(`${cli.url}/alive`, { method: 'HEAD' });
      await waitFor(() => cli.output().includes('HEAD /alive 200'));
    } finally {
      await cli.stop();
    }
    const entries = cli
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; req?: { method: string } });
    expect(entries.filter((e) => e.msg.startsWith('GET /alive'))).toHaveLength(1);
    expect(entries.find((e) => e.msg.startsWith('HEAD /alive'))?.req?.method).toBe('HEAD');
    expect(cli.output()).not.toContain('query-secret');

    const quiet = await runCli(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
      env: { SESSION_API_KEY: 'k' },
    });
    try {
      expect((await fetch(`${quiet.url}/alive`)).status).toBe(200);
    } finally {
      await quiet.stop();
    }
    expect(quiet.output()).not.toContain('"level":30');
  });

  it('are short human lines from the binary on a terminal (script gives it one)', async () => {
    const dataDir = tempDir('agentd-logs-');
    const serve = `${process.execPath} dist/cli.js --port 0 --data-dir ${dataDir}`;
    const cli = await runCli([], {
      env: { SESSION_API_KEY: 'k' },
      command: ['script', '--quiet', '--flush', '--return', '--command', serve, '/dev/null'],
    });
    try {
      await fetch(`${cli.url}/alive`);
      await waitFor(() => cli.output().includes('GET /alive 200'));
    } finally {
      await cli.stop();
    }
    const text = cli.output().replace(ANSI, '');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/alive 200 \d+ms\r?$/m);
    expect(text).not.toContain('"level"');
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}
