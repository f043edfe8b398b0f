// The OpenHands SDK's OpenHandsCloudWorkspace pointed at agentd (cloud_api_url = agentd's URL,
// cloud_api_key = a session key), step by step as its source makes the calls: the V1 API with the key
// as a bearer token, then the sandbox's own agent server with the session key it was given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ controlPlane: { warmSpare: false, sandboxProvider: 'process' } });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

type Sandbox = {
  id: string;
  status: string;
  session_api_key: string | null;
  exposed_urls: { name: string; url: string }[] | null;
};

describe("the SDK's OpenHandsCloudWorkspace against agentd", () => {
  it('starts a sandbox with a bearer key, runs a conversation in it, and deletes it', async () => {
    const cloud = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { Authorization: `Bearer ${server.key}` } });

    // The user's settings, as the web UI stores them.
    const stored = await fetch(`${server.url}/api/settings`, {
      method: 'POST',
      headers: { 'X-Session-API-Key': server.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        llm_model: 'openai/cloud-model',
        llm_api_key: 'sk-cloud-secret',
        llm_base_url: llm.openaiBaseUrl,
        mcp_config: { stdio_servers: [{ name: 'files', command: 'npx', args: ['files-mcp'] }] },
      }),
    });
    expect(stored.status).toBe(200);

    // _create_new_sandbox: POST /api/v1/sandboxes, the spec as a query parameter.
    const created = await cloud('/api/v1/sandboxes?sandbox_spec_id=process', { method: 'POST' });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as Sandbox;

    // _wait_until_sandbox_ready: GET /api/v1/sandboxes?id=… until RUNNING, then the AGENT_SERVER URL.
    let sandbox: Sandbox;
    for (;;) {
      [sandbox] = (await (await cloud(`/api/v1/sandboxes?id=${id}`)).json()) as [Sandbox];
      if (sandbox.status !== 'STARTING') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(sandbox.status).toBe('RUNNING');
    const agentServer = sandbox.exposed_urls!.find((u) => u.name === 'AGENT_SERVER')!.url;
    expect((await fetch(`${agentServer}/health`)).status).toBe(200);

    // RemoteWorkspace and RemoteConversation then talk to that agent server with the session key.
    const agent = (path: string, body?: unknown) =>
      fetch(`${agentServer}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'X-Session-API-Key': sandbox.session_api_key!, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    llm.script('cloud-workspace', [{ toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] }]);
    const started = await agent('/api/conversations', {
      agent: {
        llm: { model: 'openai/scripted', api_key: 'cloud-workspace', base_url: llm.openaiBaseUrl },
        tools: [{ name: 'terminal' }],
      },
      workspace: { working_dir: tempDir('agentd-cloud-ws-') },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      plugins: null,
      client_tools: [],
    });
    expect(started.status).toBe(201);
    const conversation = (await started.json()) as { id: string };
    for (;;) {
      const info = (await (await agent(`/api/conversations/${conversation.id}`)).json()) as {
        execution_status: string;
      };
      if (info.execution_status === 'finished') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // get_llm / get_mcp_config: GET /api/v1/users/me with the user's key as the token and the
    // sandbox's in the header. The LLM key in clear only from a server started with exposure.
    const me = (query: string) =>
      fetch(`${server.url}/api/v1/users/me${query}`, {
        headers: { Authorization: `Bearer ${server.key}`, 'X-Session-API-Key': sandbox.session_api_key! },
      });
    const user = await me('');
    expect(user.status).toBe(200);
    expect(await user.json()).toMatchObject({
      id: expect.stringMatching(/^key-/),
      llm_model: 'openai/cloud-model',
      llm_base_url: llm.openaiBaseUrl,
      llm_api_key: '**********',
      mcp_config: { sse_servers: [], stdio_servers: [{ name: 'files', command: 'npx' }], shttp_servers: [] },
    });
    const exposed = await me('?expose_secrets=true');
    expect(exposed.status).toBe(403);
    expect(await exposed.json()).toEqual({ detail: expect.stringMatching(/--expose-secrets/) });

    // The control plane's key is not the sandbox's: the agent server refuses it.
    const withCloudKey = await fetch(`${agentServer}/api/conversations/${conversation.id}`, {
      headers: { Authorization: `Bearer ${server.key}` },
    });
    expect(withCloudKey.status).toBe(401);

    // The same key in its usual header sees what the bearer token made: they name one user.
    const seen = await fetch(`${server.url}/api/v1/sandboxes?id=${id}`, {
      headers: { 'X-Session-API-Key': server.key },
    });
    expect(await seen.json()).toEqual([expect.objectContaining({ id, status: 'RUNNING' })]);

    // cleanup: DELETE /api/v1/sandboxes/{id}?sandbox_id={id}.
    const deleted = await cloud(`/api/v1/sandboxes/${id}?sandbox_id=${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await (await cloud(`/api/v1/sandboxes?id=${id}`)).json()).toEqual([null]);
  });

  it('gives the LLM key in clear to get_llm on a server started with secret exposure', async () => {
    const exposing = await startServer({ exposeSecrets: true });
    try {
      await fetch(`${exposing.url}/api/settings`, {
        method: 'POST',
        headers: { 'X-Session-API-Key': exposing.key, 'content-type': 'application/json' },
        body: JSON.stringify({ llm_model: 'openai/cloud-model', llm_api_key: 'sk-cloud-secret' }),
      });
      const me = await fetch(`${exposing.url}/api/v1/users/me?expose_secrets=true`, {
        headers: { Authorization: `Bearer ${exposing.key}` },
      });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({
        llm_model: 'openai/cloud-model',
        llm_api_key: 'sk-cloud-secret',
      });
    } finally {
      await exposing.close({ remove: true });
    }
  });
});
