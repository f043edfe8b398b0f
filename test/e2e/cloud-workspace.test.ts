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

/** fetch on `base` with `key` as the cloud workspace sends it: a bearer token. */
const bearer =
  (base: string, key: string) =>
  (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { Authorization: `Bearer ${key}` } });

/** fetch on `base` with `key` in X-Session-API-Key, JSON bodies, as the SDK's settings calls send it. */
const session = (base: string, key: string) => (path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Session-API-Key': key, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/**
 * _create_new_sandbox then _wait_until_sandbox_ready: POST /api/v1/sandboxes with the spec as a query
 * parameter, then GET /api/v1/sandboxes?id=… until it is no longer STARTING.
 */
async function startSandbox(base: string, key: string): Promise<Sandbox & { agentServer: string }> {
  const cloud = bearer(base, key);
  const created = await cloud('/api/v1/sandboxes?sandbox_spec_id=process', { method: 'POST' });
  expect(created.status).toBe(200);
  const { id } = (await created.json()) as Sandbox;
  for (;;) {
    const [sandbox] = (await (await cloud(`/api/v1/sandboxes?id=${id}`)).json()) as [Sandbox];
    if (sandbox.status === 'STARTING') {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    expect(sandbox.status).toBe('RUNNING');
    return { ...sandbox, agentServer: sandbox.exposed_urls!.find((u) => u.name === 'AGENT_SERVER')!.url };
  }
}

/** A conversation on a sandbox's agent server whose agent runs `commands`, run to its end. */
async function runInSandbox(sandbox: Sandbox & { agentServer: string }, commands: string[], extra = {}) {
  const agent = session(sandbox.agentServer, sandbox.session_api_key!);
  const script = `cloud-${Math.random()}`;
  llm.script(script, [
    ...commands.map((command) => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] })),
    { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
  ]);
  const started = await agent('/api/conversations', {
    agent: {
      llm: { model: 'openai/scripted', api_key: script, base_url: llm.openaiBaseUrl },
      tools: [{ name: 'terminal' }],
    },
    workspace: { working_dir: tempDir('agentd-cloud-ws-') },
    initial_message: { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    plugins: null,
    client_tools: [],
    ...extra,
  });
  expect(started.status).toBe(201);
  const { id } = (await started.json()) as { id: string };
  for (;;) {
    const info = (await (await agent(`/api/conversations/${id}`)).json()) as { execution_status: string };
    if (info.execution_status === 'finished') break;
    expect(info.execution_status).not.toBe('error');
    await new Promise((r) => setTimeout(r, 20));
  }
  const page = (await (await agent(`/api/conversations/${id}/events/search?limit=100`)).json()) as {
    items: { kind: string; observation?: { content?: unknown } }[];
  };
  const outputs = page.items
    .filter((e) => e.kind === 'ObservationEvent')
    .map((e) => JSON.stringify(e.observation?.content));
  return { id, outputs };
}

describe("the SDK's OpenHandsCloudWorkspace against agentd", () => {
  it('starts a sandbox with a bearer key, runs a conversation in it, and deletes it', async () => {
    const cloud = bearer(server.url, server.key);

    // The user's settings, as the web UI stores them.
    const stored = await session(server.url, server.key)('/api/settings', {
      llm_model: 'openai/cloud-model',
      llm_api_key: 'sk-cloud-secret',
      llm_base_url: llm.openaiBaseUrl,
      mcp_config: { stdio_servers: [{ name: 'files', command: 'npx', args: ['files-mcp'] }] },
    });
    expect(stored.status).toBe(200);

    const sandbox = await startSandbox(server.url, server.key);
    const { id, agentServer } = sandbox;
    expect((await fetch(`${agentServer}/health`)).status).toBe(200);

    // RemoteWorkspace and RemoteConversation then talk to that agent server with the session key.
    const conversation = await runInSandbox(sandbox, []);
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

    // get_secrets: GET /api/v1/sandboxes/{id}/settings/secrets with the sandbox's key alone lists the
    // user's secrets; a value leaves only a server started with exposure.
    const put = await fetch(`${server.url}/api/settings/secrets`, {
      method: 'PUT',
      headers: { 'X-Session-API-Key': server.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'GITHUB_TOKEN', value: 'ghp-cloud-31', description: 'repo access' }),
    });
    expect(put.status).toBe(200);
    const asSandbox = session(server.url, sandbox.session_api_key!);
    const listed = await asSandbox(`/api/v1/sandboxes/${id}/settings/secrets`);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ secrets: [{ name: 'GITHUB_TOKEN', description: 'repo access' }] });
    const value = await asSandbox(`/api/v1/sandboxes/${id}/settings/secrets/GITHUB_TOKEN`);
    expect(value.status).toBe(403);
    expect(await value.json()).toEqual({ detail: expect.stringMatching(/--expose-secrets/) });

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

  it("get_secrets: a sandbox reads its owner's secrets with its own key, and its agent server resolves them as LookupSecrets", async () => {
    const exposing = await startServer({
      keys: ['owner-key', 'other-key'],
      exposeSecrets: true,
      controlPlane: { warmSpare: false, sandboxProvider: 'process' },
    });
    try {
      const put = await fetch(`${exposing.url}/api/settings/secrets`, {
        method: 'PUT',
        headers: { 'X-Session-API-Key': 'owner-key', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'GITHUB_TOKEN', value: 'ghp-owner-77', description: 'repo access' }),
      });
      expect(put.status).toBe(200);
      const mine = await startSandbox(exposing.url, 'owner-key');
      const theirs = await startSandbox(exposing.url, 'other-key');
      const secrets = `/api/v1/sandboxes/${mine.id}/settings/secrets`;
      const asMine = session(exposing.url, mine.session_api_key!);

      expect(await (await asMine(secrets)).json()).toEqual({
        secrets: [{ name: 'GITHUB_TOKEN', description: 'repo access' }],
      });
      const value = await asMine(`${secrets}/GITHUB_TOKEN`);
      expect(value.status).toBe(200);
      expect(value.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await value.text()).toBe('ghp-owner-77');
      expect((await asMine(`${secrets}/NO_SUCH`)).status).toBe(404);

      // Neither a user's key (the owner's included) nor another sandbox's opens this sandbox's routes.
      for (const key of ['owner-key', theirs.session_api_key!]) {
        for (const path of [secrets, `${secrets}/GITHUB_TOKEN`]) {
          const refused = await session(exposing.url, key)(path);
          expect(refused.status, `${key} on ${path}`).toBe(401);
          expect(await refused.json()).toEqual({ detail: 'Unauthorized' });
        }
      }
      // The other sandbox's key reads its own owner's secrets: none.
      const asTheirs = session(exposing.url, theirs.session_api_key!);
      const theirSecrets = `/api/v1/sandboxes/${theirs.id}/settings/secrets`;
      expect(await (await asTheirs(theirSecrets)).json()).toEqual({ secrets: [] });
      // A paused sandbox runs no agent server: its key opens nothing until it is resumed.
      const cloudOther = bearer(exposing.url, 'other-key');
      expect((await cloudOther(`/api/v1/sandboxes/${theirs.id}/pause`, { method: 'POST' })).status).toBe(200);
      expect((await asTheirs(theirSecrets)).status).toBe(401);

      // What get_secrets hands RemoteConversation.update_secrets: a LookupSecret per name, with the
      // sandbox's key as its header; the agent server fetches the value when the command needs it.
      const { outputs } = await runInSandbox(mine, ['test "$GITHUB_TOKEN" = ghp-owner-77 && echo MATCHED'], {
        secrets: {
          GITHUB_TOKEN: {
            kind: 'LookupSecret',
            url: `${exposing.url}${secrets}/GITHUB_TOKEN`,
            headers: { 'X-Session-API-Key': mine.session_api_key },
            description: 'repo access',
          },
        },
      });
      expect(outputs[0]).toContain('MATCHED');

      // A deleted sandbox's key opens nothing.
      const deleted = await bearer(exposing.url, 'owner-key')(`/api/v1/sandboxes/${mine.id}`, {
        method: 'DELETE',
      });
      expect(deleted.status).toBe(200);
      expect((await asMine(secrets)).status).toBe(401);
    } finally {
      await exposing.close({ remove: true });
    }
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
