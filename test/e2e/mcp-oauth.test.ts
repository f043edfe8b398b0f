// OAuth for remote MCP servers, end to end through agentd's HTTP API, against a real OAuth 2.1
// authorization server and a real MCP server that requires its tokens (test/support/oauth-servers.ts):
// start → the authorization URL → the browser's trip → the callback → status with tools and
// oauth_state → saved in the settings (or given in a start's agent.mcp_config) → a conversation calls
// the server's tool; its token expires and is refreshed, and the refreshed one is what agentd keeps
// (a restart finds it). No token, code or client secret appears in an answer, a log line or the raw
// SQLite file. The refusals are mcp-oauth-refusals.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, startConversation, waitForStatus } from '../support/conversation.js';
import { McpOAuthEnv } from '../support/mcp-oauth.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
const logger = new RecordingLogger();
const dataDir = tempDir('agentd-oauth-');
const env = new McpOAuthEnv(() => startServer({ dataDir, serviceLogger: logger }));

beforeAll(async () => {
  await llm.start();
  await env.start();
});
afterAll(async () => {
  await env.stop();
  await llm.stop();
});

/** A conversation that calls the server's `add` tool once and finishes; its observation. */
async function addInConversation(extra: Record<string, unknown> = {}): Promise<Ev> {
  const { id } = await startConversation(
    env.server,
    llm,
    [
      { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'the sum is 42' } }] },
    ],
    { tools: ['file_editor'], ...extra },
  );
  await waitForStatus(env.server, id, ['finished', 'error']);
  const events = await allEvents(env.server, id);
  env.answers.push(JSON.stringify(events));
  const observation = events.find((e) => e.kind === 'ObservationEvent' && e.tool_name === 'add');
  expect(observation, JSON.stringify(events.filter((e) => e.kind === 'SystemPromptEvent'))).toBeDefined();
  return observation as Ev;
}

describe('MCP OAuth', () => {
  it('authorizes through start and callback, then a conversation uses the saved server and its refreshed token', async () => {
    const { status } = await env.authorizedJob();
    expect(status).toMatchObject({ ok: true, status: 'succeeded', tools: ['add', 'explode', 'die'] });
    const state = status.oauth_state as {
      tokens: Record<string, string>;
      client_info: Record<string, string>;
    };
    // Sealed for this user: nothing the authorization server gave is readable in it.
    expect(state.tokens.access_token).toMatch(/^v1:/);
    expect(state.tokens.refresh_token).toMatch(/^v1:/);
    expect(state.client_info.client_secret).toMatch(/^v1:/);
    expect(state.client_info.client_id).toMatch(/^client-/);

    const saved = await env.post('/api/settings/mcp/linear', {
      type: 'http',
      url: env.oauth.mcpUrl,
      auth: { strategy: 'oauth2', state },
    });
    expect(saved.status).toBe(201);
    expect(saved.body.agent_settings.mcp_config.linear.auth).toMatchObject({
      strategy: 'oauth2',
      state: { tokens: { access_token: '**********', refresh_token: '**********' } },
    });

    // The settings page's test of a saved server connects it with its stored tokens.
    const test = await env.post('/api/settings/mcp/test', { type: 'shttp', index: 0 });
    expect(test.body).toEqual({ ok: true, tools: ['add', 'explode', 'die'] });

    const observation = await addInConversation();
    expect(observation.observation).toMatchObject({ is_error: false });
    expect(JSON.stringify(observation.observation)).toContain('42');

    // The access token expires: the next connection is refused, refreshes, and goes on.
    env.oauth.expireAccessTokens();
    const refusals = env.oauth.refusals;
    const again = await addInConversation();
    expect(again.observation).toMatchObject({ is_error: false });
    expect(env.oauth.refusals).toBeGreaterThan(refusals);
    expect(env.oauth.grants.filter((g) => g === 'refresh_token')).toHaveLength(1);

    // The refresh rotated the refresh token: only the one agentd wrote back works now. A restart
    // (nothing in memory) with the tokens expired again refreshes with it.
    await env.restart();
    env.oauth.expireAccessTokens();
    const afterRestart = await addInConversation();
    expect(afterRestart.observation).toMatchObject({ is_error: false });
    expect(env.oauth.grants.filter((g) => g === 'refresh_token')).toHaveLength(2);
    expect((await env.call('/api/settings/mcp/linear', { method: 'DELETE' })).status).toBe(200);
  });
  it('needs no browser for a state that still works; /api/mcp/test takes the state too', async () => {
    const { status } = await env.authorizedJob();
    const withState = { ...env.spec(), auth: { strategy: 'oauth2', state: status.oauth_state } };
    const again = await env.post('/api/mcp/oauth/start', { server: withState });
    expect(again.body).toEqual({ ok: true, job_id: expect.any(String) });
    const done = await env.call(`/api/mcp/oauth/status/${again.body.job_id}`);
    expect(done.body).toMatchObject({ ok: true, status: 'succeeded', tools: ['add', 'explode', 'die'] });
    expect(done.body.oauth_state.tokens.access_token).toMatch(/^v1:/);

    const tested = await env.post('/api/mcp/test', {
      server: withState,
      tool_call: { name: 'add', arguments: { a: 20, b: 22 } },
    });
    expect(tested.body).toMatchObject({ ok: true, tool_result: { is_error: false, text: '42' } });
    expect(tested.body.oauth_state.tokens.refresh_token).toMatch(/^v1:/);
    const without = await env.post('/api/mcp/test', { server: env.spec() });
    expect(without.body).toMatchObject({
      ok: false,
      error: expect.stringContaining('needs OAuth authorization'),
    });
  });

  it("keeps a conversation's own OAuth server (agent.mcp_config) and writes its refreshed state into the conversation", async () => {
    const { status } = await env.authorizedJob();
    const mcp_config = {
      mcpServers: {
        linear: {
          url: env.oauth.mcpUrl,
          transport: 'http',
          auth: { strategy: 'oauth2', state: status.oauth_state },
        },
      },
    };
    const { id } = await startConversation(
      env.server,
      llm,
      // Two runs: the first message's, then the one sent after the restart.
      [
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'two' } }] },
        { toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'four' } }] },
      ],
      { tools: ['file_editor'], agent: { mcp_config } },
    );
    await waitForStatus(env.server, id, ['finished']);
    const conversation = await env.call(`/api/conversations/${id}`);
    expect(JSON.stringify(conversation.body)).not.toMatch(/v1:/); // masked, not even sealed
    // Expired: the next message's call refreshes, and the conversation records the new state.
    env.oauth.expireAccessTokens();
    const refreshes = env.oauth.grants.filter((g) => g === 'refresh_token').length;
    await env.restart();
    const sent = await env.post(`/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'again' }],
      run: true,
    });
    expect(sent.status).toBe(200);
    await waitForStatus(env.server, id, ['finished', 'error']);
    const events = await allEvents(env.server, id);
    env.answers.push(JSON.stringify(events));
    const adds = events.filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'add');
    expect(adds.at(-1)?.observation).toMatchObject({ is_error: false });
    expect(env.oauth.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1);
    const update = events
      .filter((e) => e.kind === 'ConversationStateUpdateEvent' && e.key === 'agent')
      .at(-1);
    expect(JSON.stringify(update?.value)).toContain('"access_token":"**********"');
  });
  it('refreshes before the first request a token whose recorded expiry has passed', async () => {
    const { status } = await env.authorizedJob();
    const state = { ...(status.oauth_state as object), token_expires_at: 1 };
    const saved = await env.post('/api/settings/mcp/early', {
      type: 'http',
      url: env.oauth.mcpUrl,
      auth: { strategy: 'oauth2', state },
    });
    expect(saved.status).toBe(201);
    // The web UI saves the whole flat record as GET gave it (secrets null): the stored ones stay.
    const flat = (await env.call('/api/settings')).body;
    expect(flat.mcp_config.shttp_servers[0].oauth.state.tokens.refresh_token).toBeNull();
    expect((await env.post('/api/settings', { mcp_config: flat.mcp_config })).status).toBe(200);
    const refusals = env.oauth.refusals;
    const refreshes = env.oauth.grants.filter((g) => g === 'refresh_token').length;
    expect((await addInConversation()).observation).toMatchObject({ is_error: false });
    expect(env.oauth.refusals).toBe(refusals); // nothing was sent with the stale token
    expect(env.oauth.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1);
    // The settings keep the new expiry (not a secret: shown as it is).
    const view = await env.call('/api/settings');
    const kept = view.body.agent_settings.mcp_config.early.auth.state;
    expect(kept.token_expires_at).toBeGreaterThan(Date.now() / 1000);
    expect((await env.call('/api/settings/mcp/early', { method: 'DELETE' })).status).toBe(200);
  });

  it('tells the agent a server whose refresh is refused needs authorizing again', async () => {
    const { status } = await env.authorizedJob();
    const state = { ...(status.oauth_state as object), token_expires_at: 1 };
    await env.post('/api/settings/mcp/revoked', {
      type: 'http',
      url: env.oauth.mcpUrl,
      auth: { strategy: 'oauth2', state },
    });
    env.oauth.revokeRefreshTokens();
    const { id } = await startConversation(env.server, llm, [{ text: 'nothing to call' }], {
      tools: ['file_editor'],
    });
    await waitForStatus(env.server, id, ['finished']);
    const events = await allEvents(env.server, id);
    env.answers.push(JSON.stringify(events));
    const prompt = JSON.stringify(events.find((e) => e.kind === 'SystemPromptEvent'));
    expect(prompt).toContain('needs OAuth authorization');
    expect(prompt).toContain('refresh was refused');
    expect((await env.call('/api/settings/mcp/revoked', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('no secret shows', () => {
  it('in any answer, log line or the raw store', () => {
    env.expectNoSecret(logger.text());
  });
});
