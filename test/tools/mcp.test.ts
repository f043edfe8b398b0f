import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { withSearchServer } from '../../src/settings/index.js';
import { allEvents, type Ev, startConversation, waitForStatus } from '../support/conversation.js';
// @ts-expect-error: a plain JS test helper
import { mcpServer } from '../support/mcp-server.mjs';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const stdioServer = {
  name: 'calc',
  command: process.execPath,
  args: [join(process.cwd(), 'test/support/mcp-server.mjs'), 'stdio'],
  env: {},
};

let server: TestServer;
let http: Server;
let httpUrl = '';
/** The x-team and authorization headers of each request the HTTP server got. */
const teams: (string | undefined)[] = [];
const authorizations: (string | undefined)[] = [];
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer();
  http = createServer(async (req, res) => {
    teams.push(req.headers['x-team'] as string | undefined);
    authorizations.push(req.headers.authorization);
    // Stateless streamable HTTP: a fresh server and transport per request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const address = http.address();
  httpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
  http.closeAllConnections();
  await new Promise((r) => http.close(r));
});

const saveMcpConfig = (config: object) =>
  api(server, '/api/settings', { method: 'POST', body: JSON.stringify({ mcp_config: config }) });

describe('MCP tools', () => {
  it('connects the stdio server of the user settings, lists its tools, and calls them', async () => {
    await saveMcpConfig({ stdio_servers: [stdioServer] });
    const { id } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
        { toolCalls: [{ name: 'explode', arguments: {} }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'the sum is 42' } }] },
      ],
      { tools: ['terminal'] },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const tools = (
      events[0] as Ev & { tools: { kind: string; title: string; mcp_tool?: { name: string } }[] }
    ).tools;
    expect(tools.filter((t) => t.kind === 'MCPToolDefinition').map((t) => t.mcp_tool?.name)).toEqual([
      'add',
      'explode',
      'die',
    ]);
    const actions = events.filter((e) => e.kind === 'ActionEvent');
    expect(actions[0]!.action).toEqual({ data: { a: 2, b: 40 }, kind: 'MCPToolAction' });
    const observations = events.filter((e) => e.kind === 'ObservationEvent').map((e) => e.observation as Ev);
    expect(observations[0]).toMatchObject({
      kind: 'MCPToolObservation',
      tool_name: 'add',
      is_error: false,
      content: [{ text: "[Tool 'add' executed.]" }, { text: '42' }],
    });
    expect(observations[1]).toMatchObject({ tool_name: 'explode', is_error: true });
  });

  it('shares one connection between conversations of a user and closes it when unused', async () => {
    // Its own config (another env), so conversations of the other tests do not hold it.
    await saveMcpConfig({ stdio_servers: [{ ...stdioServer, env: { SHARED: '1' } }] });
    const before = server.mcp.size;
    const a = await startConversation(server, llm, [{ text: 'a' }], { tools: ['terminal'] });
    const b = await startConversation(server, llm, [{ text: 'b' }], { tools: ['terminal'] });
    await waitForStatus(server, a.id, ['finished']);
    await waitForStatus(server, b.id, ['finished']);
    expect(server.mcp.size).toBe(before + 1);
    for (const c of [a, b]) await api(server, `/api/conversations/${c.id}`, { method: 'DELETE' });
    expect(server.mcp.size).toBe(before);
  });

  it('calls tools of a streamable HTTP server', async () => {
    await saveMcpConfig({ shttp_servers: [{ url: httpUrl }] });
    const { id } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'three' }],
      {
        tools: ['terminal'],
      },
    );
    await waitForStatus(server, id, ['finished']);
    const observation = (await allEvents(server, id)).find((e) => e.kind === 'ObservationEvent')!
      .observation as Ev;
    expect(observation).toMatchObject({ kind: 'MCPToolObservation', content: [{}, { text: '3' }] });
  });

  it("gives the agent web search from the settings' search_api_key: the configured server, the key its bearer", async () => {
    const searching = await startServer({ searchMcpUrl: httpUrl });
    try {
      const save = (settings: object) =>
        api(searching, '/api/settings', { method: 'POST', body: JSON.stringify(settings) });
      /** A run that calls the search server's tool; its events and the authorizations the server saw. */
      const run = async () => {
        const seen = authorizations.length;
        const { id } = await startConversation(
          searching,
          llm,
          [{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'three' }],
          { tools: ['terminal'] },
        );
        await waitForStatus(searching, id, ['finished']);
        return { events: await allEvents(searching, id), bearers: new Set(authorizations.slice(seen)) };
      };
      await save({ search_api_key: 'tvly-search-secret' });
      const searched = await run();
      const observation = searched.events.find((e) => e.kind === 'ObservationEvent')!.observation as Ev;
      expect(observation).toMatchObject({ kind: 'MCPToolObservation', content: [{}, { text: '3' }] });
      expect(searched.bearers).toEqual(new Set(['Bearer tvly-search-secret']));
      expect(JSON.stringify(searched.events)).not.toContain('tvly-search-secret');

      // The user's own entry for that endpoint stands: one server, with their key (the search key is kept).
      await save({ mcp_config: { shttp_servers: [{ url: `${httpUrl}/`, api_key: 'own-key' }] } });
      const own = await run();
      expect(own.bearers).toEqual(new Set(['Bearer own-key']));
      const system = own.events[0] as Ev & { dynamic_context?: { text: string } };
      expect(system.dynamic_context?.text ?? '').not.toContain('already taken');
    } finally {
      await searching.close({ remove: true });
    }
  });

  it('takes the search server from AGENTD_SEARCH_MCP_URL, else Tavily; a URL that is not http(s) is a ConfigError', () => {
    const config = (env: Record<string, string>) => resolveConfig({ dataDir: tempDir(), auth: false }, env);
    // Unset, the search server is Tavily's, the key its bearer.
    expect(config({}).searchMcpUrl).toBeUndefined();
    expect(withSearchServer(null, 'tvly-key', config({}).searchMcpUrl)?.shttp_servers).toEqual([
      { name: 'tavily', url: 'https://mcp.tavily.com/mcp/', api_key: 'tvly-key' },
    ]);
    expect(config({ AGENTD_SEARCH_MCP_URL: 'http://127.0.0.1:7000/mcp' }).searchMcpUrl).toBe(
      'http://127.0.0.1:7000/mcp',
    );
    for (const bad of ['file:///etc/passwd', 'not a url', 'https://user:pw@search.example/mcp'])
      expect(() => config({ AGENTD_SEARCH_MCP_URL: bad })).toThrow(ConfigError);
  });

  it('keeps the conversation going when a server fails to start or dies', async () => {
    await saveMcpConfig({
      stdio_servers: [{ name: 'broken', command: '/nonexistent/mcp-server', args: [] }, stdioServer],
    });
    const { id } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'die', arguments: {} }] },
        { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
        { text: 'carried on' },
      ],
      { tools: ['terminal'] },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const system = events[0] as Ev & { dynamic_context: { text: string } };
    expect(system.dynamic_context.text).toContain('MCP server broken could not be started');
    const errors = events.filter((e) => e.kind === 'AgentErrorEvent');
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.map((e) => e.tool_name)).toContain('die');
    expect(events.some((e) => e.kind === 'MessageEvent' && e.source === 'agent')).toBe(true);
  });

  it("connects the agent's own servers (the SDK's Agent.mcp_config), their env and headers sealed and masked", async () => {
    await saveMcpConfig({});
    const { id } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'add', arguments: { a: 40, b: 2 } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
      ],
      {
        tools: ['terminal'],
        agent: {
          mcp_config: {
            mcpServers: {
              calc: { ...stdioServer, name: undefined, env: { CALC_TOKEN: 'stdio-secret' } },
              remote: { url: httpUrl, headers: { 'x-team': 'blue-secret' } },
            },
          },
        },
      },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const observation = events.find((e) => e.kind === 'ObservationEvent')!.observation as Ev;
    expect(observation).toMatchObject({
      kind: 'MCPToolObservation',
      tool_name: 'add',
      content: [{}, { text: '42' }],
    });
    // The remote server's tools share the stdio one's names: skipped with a note, but it was reached,
    // with its header.
    expect(teams).toContain('blue-secret');
    const info = (await (await api(server, `/api/conversations/${id}`)).json()) as {
      agent: {
        mcp_config: { mcpServers: Record<string, { env?: object; headers?: object; command?: string }> };
      };
    };
    expect(info.agent.mcp_config.mcpServers.calc).toMatchObject({
      command: process.execPath,
      env: { CALC_TOKEN: '**********' },
    });
    expect(info.agent.mcp_config.mcpServers.remote).toMatchObject({ headers: { 'x-team': '**********' } });
    const stored = JSON.stringify(await server.store.conversations.get(id));
    expect(stored).not.toContain('stdio-secret');
    expect(stored).not.toContain('blue-secret');

    for (const [server_, detail] of [
      [{ command: 'x', url: httpUrl }, 'either a command or a url'],
      [{ url: 'file:///etc/passwd' }, 'http(s)'],
      [{ command: 'x', transport: 'sse' }, 'stdio'],
    ] as const) {
      const res = await api(server, '/api/conversations', {
        method: 'POST',
        body: JSON.stringify({
          agent: {
            llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl },
            mcp_config: { mcpServers: { bad: server_ } },
          },
          workspace: { working_dir: '/tmp' },
        }),
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain(detail);
    }
  });

  it("keeps what filter_tools_regex matches of the spec's and MCP tools, and the default finish and think", async () => {
    await saveMcpConfig({ stdio_servers: [stdioServer] });
    const { id, key } = await startConversation(server, llm, [{ text: 'ok' }], {
      tools: ['terminal', 'file_editor'],
      agent: { filter_tools_regex: 'add|term' },
    });
    await waitForStatus(server, id, ['finished']);
    // Python's re.match: 'add' matches add (not explode, die), 'term' terminal (not file_editor).
    const offered = llm.requestsFor(key)[0]!.body.tools as { function: { name: string } }[];
    expect(offered.map((t) => t.function.name).sort()).toEqual(['add', 'finish', 'terminal', 'think']);
    const system = (await allEvents(server, id))[0] as Ev & { tools: unknown[] };
    expect(system.tools).toHaveLength(4);

    const bad = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: {
          llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl },
          filter_tools_regex: '(?P<n>x)',
        },
        workspace: { working_dir: '/tmp' },
      }),
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('filter_tools_regex');
  });

  it("reads the newer SDK's mcp_config shape: servers by name, null members, auth, and disabled ones left out", async () => {
    await saveMcpConfig({});
    const nulls = {
      command: null,
      args: null,
      env: null,
      cwd: null,
      url: null,
      transport: null,
      headers: null,
    };
    const { id } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'three' }],
      {
        tools: ['terminal'],
        agent: {
          mcp_config: {
            remote: {
              ...nulls,
              url: httpUrl,
              transport: 'http',
              enabled: true,
              auth: { strategy: 'bearer', value: 'tok-secret' },
            },
            off: { ...nulls, command: '/nonexistent/mcp-server', enabled: false, auth: null },
          },
        },
      },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const observation = events.find((e) => e.kind === 'ObservationEvent')!.observation as Ev;
    expect(observation).toMatchObject({ kind: 'MCPToolObservation', content: [{}, { text: '3' }] });
    expect(authorizations).toContain('Bearer tok-secret');
    // The disabled server was never started (a start failure would be a note in the system prompt).
    expect((events[0] as Ev & { dynamic_context: { text: string } }).dynamic_context.text).not.toContain(
      'MCP server off',
    );
    const info = (await (await api(server, `/api/conversations/${id}`)).json()) as {
      agent: { mcp_config: unknown };
    };
    expect(info.agent.mcp_config).toEqual({
      mcpServers: { remote: { url: httpUrl, transport: 'http', headers: { Authorization: '**********' } } },
    });
    expect(JSON.stringify(await server.store.conversations.get(id))).not.toContain('tok-secret');

    const startWithAuth = (auth: object) =>
      api(server, '/api/conversations', {
        method: 'POST',
        body: JSON.stringify({
          agent: {
            llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl },
            mcp_config: { remote: { url: httpUrl, auth } },
          },
          workspace: { working_dir: '/tmp' },
        }),
      });
    // oauth2 is taken (test/e2e/mcp-oauth.test.ts); a strategy the SDK does not have is not.
    const unknown = await startWithAuth({ strategy: 'kerberos' });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toEqual({
      detail: [expect.objectContaining({ loc: ['body', 'agent', 'mcp_config', 'remote', 'auth'] })],
    });
    // A credential's members are checked as the rest of the request is.
    const badValue = await startWithAuth({ strategy: 'bearer', value: 7 });
    expect(badValue.status).toBe(422);
    expect(JSON.stringify(await badValue.json())).toContain('"value"');
  });

  it('connects the servers of a conversation stored before their values were sealed (kept in clear then)', async () => {
    await saveMcpConfig({});
    const { id } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'add', arguments: { a: 5, b: 5 } }] }, { text: 'ten' }],
      { tools: ['terminal'], message: '' },
    );
    const record = (await server.store.conversations.get(id))!;
    const { name: _name, ...calc } = stdioServer;
    (record.state as { agent: Record<string, unknown> }).agent.mcp_config = {
      mcpServers: { calc: { ...calc, env: { CALC_TOKEN: 'stored-in-clear' } } },
    };
    await server.store.conversations.update(id, { state: record.state });
    const sent = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'add' }], run: true }),
    });
    expect(sent.status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    const observation = (await allEvents(server, id)).find((e) => e.kind === 'ObservationEvent')!
      .observation as Ev;
    expect(observation).toMatchObject({ kind: 'MCPToolObservation', content: [{}, { text: '10' }] });
  });
});
