// What the MCP OAuth tests share: agentd and the OAuth test servers (oauth-servers.ts), the calls
// they make through agentd's API (every answer kept, to look for secrets in), and the browser's trip
// to the authorization server and back, made with fetch (redirects by hand: the test is the user).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type OAuthServers, startOAuthServers } from './oauth-servers.js';
import { api, type TestServer } from './server.js';

export class McpOAuthEnv {
  oauth!: OAuthServers;
  server!: TestServer;
  /** Every answer agentd gave, to look for secrets in. */
  readonly answers: string[] = [];

  constructor(private readonly boot: () => Promise<TestServer>) {}

  async start(): Promise<void> {
    this.oauth = await startOAuthServers();
    this.server = await this.boot();
  }

  async stop(): Promise<void> {
    await this.server?.close({ remove: true });
    await this.oauth?.close();
  }

  /** agentd stopped and started again on the same data folder: nothing kept in memory. */
  async restart(): Promise<void> {
    await this.server.close();
    this.server = await this.boot();
  }

  /** An API call whose answer is kept and parsed. */
  async call(path: string, init: RequestInit & { key?: string | null } = {}) {
    const res = await api(this.server, path, init);
    const text = await res.text();
    this.answers.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  post(path: string, body: unknown, key?: string) {
    return this.call(path, { method: 'POST', body: JSON.stringify(body), ...(key ? { key } : {}) });
  }

  /** The test MCP server as a start or test request gives it, signing in with OAuth. */
  spec(url = this.oauth.mcpUrl) {
    return { type: 'http', url, auth: { strategy: 'oauth2' } };
  }

  /** The browser's part: follows the authorization URL to where the authorization server sends it back. */
  async authorize(authorizationUrl: string): Promise<string> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return res.headers.get('location') as string;
  }

  /** Start, the browser's trip, the callback: the job's final status. */
  async authorizedJob(): Promise<{ jobId: string; status: Record<string, unknown> }> {
    const started = await this.post('/api/mcp/oauth/start', { name: 'linear', server: this.spec() });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ ok: true, job_id: expect.any(String) });
    const back = await this.authorize(started.body.authorization_url);
    const done = await this.post(`/api/mcp/oauth/callback/${started.body.job_id}`, { callback_url: back });
    expect(done.status).toBe(200);
    return { jobId: started.body.job_id, status: done.body };
  }

  /** Checks that nothing the authorization server gave out is in the answers, `logged` or the raw store. */
  expectNoSecret(logged: string): void {
    expect(this.oauth.secrets.size).toBeGreaterThan(0);
    const dir = this.server.dataDir;
    const stored = readdirSync(dir)
      .filter((f) => f.startsWith('agentd.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    const everything = [...this.answers, logged, stored].join('\n');
    for (const secret of this.oauth.secrets) expect(everything).not.toContain(secret);
  }
}
