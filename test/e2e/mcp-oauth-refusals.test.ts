// The refusals of MCP OAuth through agentd's HTTP API (the flows are mcp-oauth.test.ts): unknown,
// expired and other users' jobs, callbacks with a wrong state or for another redirect URI, an
// authorization server that says no, metadata that points away from the authorization server, what
// is not an oauth2 server, too many jobs; and where the redirect URI comes from.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { McpOAuthJobs } from '../../src/tools/mcp/oauth/jobs.js';
import { McpOAuthEnv } from '../support/mcp-oauth.js';
import { startOAuthServers } from '../support/oauth-servers.js';
import { api, startServer, tempDir } from '../support/server.js';

const KEYS = ['oauth-key-1', 'oauth-key-2'];
const env = new McpOAuthEnv(() =>
  startServer({ keys: KEYS, mcpOAuth: { limits: { ttlMs: 60_000, perUser: 3, total: 50 } } }),
);

beforeAll(() => env.start());
afterAll(() => env.stop());

describe('MCP OAuth refusals', () => {
  it("answers 404 for an unknown job and for another user's, on status and callback", async () => {
    expect((await env.call('/api/mcp/oauth/status/nosuchjob')).status).toBe(404);
    expect((await env.post('/api/mcp/oauth/callback/nosuchjob', { callback_url: 'http://x/' })).status).toBe(
      404,
    );
    const started = await env.post('/api/mcp/oauth/start', { server: env.spec() });
    const jobId = started.body.job_id as string;
    const other = await env.call(`/api/mcp/oauth/status/${jobId}`, { key: KEYS[1] });
    expect(other.status).toBe(404);
    const back = await env.authorize(started.body.authorization_url);
    const stolen = await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: back }, KEYS[1]);
    expect(stolen.status).toBe(404);
    // The owner's job is untouched by that, and completes.
    const done = await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: back });
    expect(done.body).toMatchObject({ status: 'succeeded' });
    // Once done it waits for no callback.
    expect((await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: back })).status).toBe(409);
  });

  it('refuses a callback with a wrong state or for another redirect URI, and the job still completes', async () => {
    const started = await env.post('/api/mcp/oauth/start', { server: env.spec() });
    const jobId = started.body.job_id as string;
    const back = new URL(await env.authorize(started.body.authorization_url));
    expect(back.pathname).toBe('/ui/oauth/callback');
    expect(back.origin).toBe(env.server.url); // agentd's own page, on the host the start was sent to
    const forged = new URL(back);
    forged.searchParams.set('state', `${jobId}.not-the-secret`);
    const wrongState = await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: forged.href });
    expect(wrongState).toMatchObject({ status: 400, body: { detail: expect.stringContaining('state') } });
    const elsewhere = new URL(back);
    elsewhere.pathname = '/somewhere/else';
    const wrongPlace = await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: elsewhere.href });
    expect(wrongPlace.status).toBe(400);
    expect((await env.call(`/api/mcp/oauth/status/${jobId}`)).body).toMatchObject({
      status: 'authorizing',
      callback_ready: true,
    });
    const done = await env.post(`/api/mcp/oauth/callback/${jobId}`, { callback_url: back.href });
    expect(done.body).toMatchObject({ ok: true, status: 'succeeded' });
  });

  it('fails the job when the authorization server refuses', async () => {
    const started = await env.post('/api/mcp/oauth/start', { server: env.spec() });
    env.oauth.refuseAuthorization = true;
    const back = await env.authorize(started.body.authorization_url).finally(() => {
      env.oauth.refuseAuthorization = false;
    });
    const done = await env.post(`/api/mcp/oauth/callback/${started.body.job_id}`, { callback_url: back });
    expect(done.body).toMatchObject({
      ok: false,
      status: 'failed',
      error: expect.stringContaining('access_denied'),
      error_kind: 'connection',
    });
    expect(done.body.oauth_state).toBeUndefined();
  });

  it('refuses what is not an oauth2 server, and more jobs than a user may have', async () => {
    const bearer = await env.post('/api/mcp/oauth/start', {
      server: { type: 'http', url: env.oauth.mcpUrl, auth: { strategy: 'bearer', value: 'x' } },
    });
    expect(bearer).toMatchObject({ status: 400, body: { detail: expect.stringContaining('oauth2') } });
    const command = await env.post('/api/mcp/oauth/start', {
      server: { command: 'true', auth: { strategy: 'oauth2' } },
    });
    expect(command.status).toBe(422);
    // This server allows 3 per user; waiting ones are not dropped for a new one.
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await env.post('/api/mcp/oauth/start', { server: env.spec() }));
    expect(jobs.every((j) => j.body.ok)).toBe(true);
    const fourth = await env.post('/api/mcp/oauth/start', { server: env.spec() });
    expect(fourth.status).toBe(429);
    // Another user has room of their own.
    expect((await env.post('/api/mcp/oauth/start', { server: env.spec() }, KEYS[1])).status).toBe(200);
  });

  it('forgets a job once it expired', async () => {
    const short = await startServer({
      keys: KEYS,
      mcpOAuth: { limits: { ttlMs: 200, perUser: 3, total: 50 } },
    });
    try {
      const res = await api(short, '/api/mcp/oauth/start', {
        method: 'POST',
        body: JSON.stringify({ server: env.spec() }),
      });
      const { job_id } = (await res.json()) as { job_id: string };
      let status = 200;
      while (status === 200) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await api(short, `/api/mcp/oauth/status/${job_id}`)).status;
      }
      expect(status).toBe(404);
    } finally {
      await short.close({ remove: true });
    }
  });

  it('ends a job that expired while it was still finding the authorization server', async () => {
    const slow = await startOAuthServers({ metadataDelayMs: 500 });
    const short = await startServer({
      keys: KEYS,
      mcpOAuth: { limits: { ttlMs: 100, perUser: 3, total: 50 } },
    });
    // The job's run, watched from inside: the API shows nothing of a job once it is forgotten.
    type Jobs = { run: (...args: unknown[]) => Promise<void> };
    const runOf = (McpOAuthJobs.prototype as unknown as Jobs).run;
    const runs: Promise<void>[] = [];
    const spy = vi.spyOn(McpOAuthJobs.prototype as unknown as Jobs, 'run').mockImplementation(function (
      this: unknown,
      ...args: unknown[]
    ) {
      const running = runOf.apply(this, args);
      runs.push(running);
      return running;
    });
    try {
      const res = await api(short, '/api/mcp/oauth/start', {
        method: 'POST',
        body: JSON.stringify({ server: env.spec(slow.mcpUrl) }),
      });
      expect(await res.json()).toMatchObject({ ok: false, error: 'The job expired' });
      expect(runs).toHaveLength(1);
      const ended = await Promise.race([
        runs[0]!.then(() => 'ended'),
        new Promise((r) => setTimeout(() => r('still waiting'), 3_000)),
      ]);
      expect(ended).toBe('ended');
    } finally {
      spy.mockRestore();
      await short.close({ remove: true });
      await slow.close();
    }
  });

  it('sends no OAuth request where the metadata points away from the authorization server', async () => {
    const elsewhere = await startOAuthServers({
      metadata: (m) => ({ ...m, token_endpoint: 'http://127.0.0.2:9/token' }),
    });
    try {
      // The other user: the first one used up their jobs above.
      const started = await env.post('/api/mcp/oauth/start', { server: env.spec(elsewhere.mcpUrl) }, KEYS[1]);
      expect(started.body).toMatchObject({
        ok: false,
        error: expect.stringContaining('token_endpoint on http://127.0.0.2:9'),
        error_kind: 'connection',
      });
      expect(elsewhere.clients.size).toBe(0); // not even registered
    } finally {
      await elsewhere.close();
    }
  });

  it('opens no authorization URL off the authorization server, when its metadata came only to the second ask', async () => {
    // discover() finds no metadata and the MCP SDK's auth() reads it again itself, unchecked there.
    const elsewhere = await startOAuthServers({
      metadataOnSecondAsk: true,
      metadata: (m) => ({ ...m, authorization_endpoint: 'http://127.0.0.2:9/authorize' }),
    });
    try {
      const started = await env.post('/api/mcp/oauth/start', { server: env.spec(elsewhere.mcpUrl) }, KEYS[1]);
      expect(started.body).toMatchObject({
        ok: false,
        error: expect.stringContaining('sends the browser to http://127.0.0.2:9'),
      });
      expect(started.body.authorization_url ?? null).toBeNull();
    } finally {
      await elsewhere.close();
    }
  });
});

describe('the redirect URI', () => {
  /** The redirect_uri an authorization URL carries. */
  const redirectOf = (authorizationUrl: string) => new URL(authorizationUrl).searchParams.get('redirect_uri');

  /** A start sent with this Host header: its status and body. */
  const startWithHost = (host: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: new URL(env.server.url).port,
          method: 'POST',
          path: '/api/mcp/oauth/start',
          headers: { host, 'content-type': 'application/json', 'x-session-api-key': KEYS[1] },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ server: env.spec() }));
    });

  it('is the callback page on the host the start request was sent to', async () => {
    const port = new URL(env.server.url).port;
    const answer = await startWithHost(`localhost:${port}`);
    env.answers.push(answer.text);
    expect(redirectOf(JSON.parse(answer.text).authorization_url)).toBe(
      `http://localhost:${port}/ui/oauth/callback`,
    );
    // A Host that would carry the URL on (userinfo, a path) makes none.
    const odd = await startWithHost('agentd.example@elsewhere.example');
    expect(odd.status).toBe(400);
    expect(odd.text).toContain('AGENTD_PUBLIC_URL');
  });

  it("is AGENTD_PUBLIC_URL's callback page when that is set, whatever the host", async () => {
    expect(
      resolveConfig({ dataDir: tempDir(), auth: false }, { AGENTD_PUBLIC_URL: 'https://agentd.example/' })
        .publicUrl,
    ).toBe('https://agentd.example');
    expect(() =>
      resolveConfig({ dataDir: tempDir(), auth: false }, { AGENTD_PUBLIC_URL: 'https://agentd.example/sub' }),
    ).toThrow(ConfigError);
    const behindProxy = await startServer({ keys: KEYS, mcpOAuth: { publicUrl: 'https://agentd.example' } });
    try {
      const res = await api(behindProxy, '/api/mcp/oauth/start', {
        method: 'POST',
        body: JSON.stringify({ server: env.spec() }),
      });
      const body = (await res.json()) as { authorization_url: string };
      expect(redirectOf(body.authorization_url)).toBe('https://agentd.example/ui/oauth/callback');
    } finally {
      await behindProxy.close({ remove: true });
    }
  });
});

describe('no secret shows', () => {
  it('in any answer or the raw store', () => {
    env.expectNoSecret('');
  });
});
