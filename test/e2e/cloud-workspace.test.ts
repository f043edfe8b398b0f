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
});
