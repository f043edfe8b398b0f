// The V1 control-plane API beyond the main flow: limits, deletion, validation, isolation, specs,
// start-task errors, stream-start, filters and paging, sub-conversations, and mirrors refusing work.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_LOOPBACK_MCP } from '../support/cli.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually, getJson, type Json, postJson, useScriptedLLM, waitForTask } from '../support/v1.js';

const llm = new ScriptedLLM();
let server: TestServer;
const other = () => ({ url: server.url, key: 'other-user-key' });

beforeAll(async () => {
  await llm.start();
  server = await startServer({
    keys: ['test-key-1', 'other-user-key'],
    // The process provider here; the end-to-end flow (test/e2e) and test/sandbox run bwrap.
    controlPlane: { maxSandboxes: 2, warmSpare: false, sandboxProvider: 'process' },
  });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const finish = (message: string) => [{ toolCalls: [{ name: 'finish', arguments: { message } }] }];

/** The sandbox once it is no longer STARTING. */
async function settled(id: string): Promise<Json> {
  for (;;) {
    const [current] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${id}`);
    if (current!.status !== 'STARTING') return current!;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runningSandbox(): Promise<Json> {
  return settled((await postJson(server, '/api/v1/sandboxes')).id as string);
}

async function startIn(sandboxId: string, text: string, extra: Json = {}): Promise<Json> {
  await useScriptedLLM(server, llm, finish(`done: ${text}`));
  const task = await postJson(server, '/api/v1/app-conversations', {
    sandbox_id: sandboxId,
    initial_message: { content: [{ type: 'text', text }] },
    ...extra,
  });
  return waitForTask(server, task.id as string);
}

describe('sandboxes', () => {
  it('limits running sandboxes with a 429; paused ones do not count; delete stops and removes', async () => {
    const a = await runningSandbox();
    expect(a).toMatchObject({ status: 'RUNNING', sandbox_spec_id: 'process' });
    expect(a.exposed_urls).toEqual([
      { name: 'AGENT_SERVER', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) },
    ]);
    const health = await fetch(`${(a.exposed_urls as Json[])[0]!.url}/alive`);
    expect(health.status).toBe(200);
    const b = await runningSandbox();

    const refused = await api(server, '/api/v1/sandboxes', { method: 'POST' });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /Sandbox limit reached: 2 sandboxes/,
    );

    await postJson(server, `/api/v1/sandboxes/${a.id}/pause`);
    const c = await runningSandbox();
    const resumeRefused = await api(server, `/api/v1/sandboxes/${a.id}/resume`, { method: 'POST' });
    expect(resumeRefused.status).toBe(429);

    const dir = join(server.dataDir, 'sandboxes', b.id as string);
    expect(existsSync(dir)).toBe(true);
    expect((await api(server, `/api/v1/sandboxes?sandbox_id=${b.id}`, { method: 'DELETE' })).status).toBe(
      200,
    );
    expect(existsSync(dir)).toBe(false);
    expect(await getJson(server, `/api/v1/sandboxes?id=${b.id}`)).toEqual([null]);
    expect((await api(server, `/api/v1/sandboxes/${c.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(server, `/api/v1/sandboxes/${c.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api(server, '/api/v1/sandboxes', { method: 'DELETE' })).status).toBe(422);

    expect(await postJson(server, `/api/v1/sandboxes/${a.id}/resume`)).toEqual({ success: true });
    expect((await getJson<Json[]>(server, `/api/v1/sandboxes?id=${a.id}`))[0]).toMatchObject({
      status: 'RUNNING',
    });
    expect((await api(server, `/api/v1/sandboxes/${a.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it("answers 404 for unknown sandboxes and specs, 422 for bad queries, null for others' sandboxes", async () => {
    expect((await api(server, '/api/v1/sandboxes/nope/pause', { method: 'POST' })).status).toBe(404);
    expect((await api(server, '/api/v1/sandboxes/nope/resume', { method: 'POST' })).status).toBe(404);
    const badSpec = await api(server, '/api/v1/sandboxes?sandbox_spec_id=nope', { method: 'POST' });
    expect(badSpec.status).toBe(404);
    expect(await badSpec.json()).toEqual({ detail: 'Sandbox spec not found: nope' });
    const tooMany = await api(server, '/api/v1/sandboxes/search?limit=101');
    expect(tooMany.status).toBe(422);
    expect(((await tooMany.json()) as { detail: Json[] }).detail[0]).toMatchObject({
      loc: ['query', 'limit'],
    });
    expect((await api(server, '/api/v1/sandboxes')).status).toBe(422);
    expect((await api(server, '/api/v1/sandboxes/search?page_id=nope')).status).toBe(400);

    const mine = await postJson(server, '/api/v1/sandboxes');
    expect(await getJson(other(), `/api/v1/sandboxes?id=${mine.id}`)).toEqual([null]);
    expect((await getJson<{ items: Json[] }>(other(), '/api/v1/sandboxes/search')).items).toEqual([]);
    expect((await api(other(), `/api/v1/sandboxes/${mine.id}/pause`, { method: 'POST' })).status).toBe(404);
    expect((await api(server, `/api/v1/sandboxes/${mine.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('lists sandbox specs', async () => {
    const page = await getJson<{ items: Json[]; next_page_id: null }>(server, '/api/v1/sandbox-specs/search');
    expect(page).toEqual({
      items: [
        {
          id: 'process',
          command: ['agentd', 'agent'],
          created_at: expect.any(String),
          initial_env: {},
          working_dir: 'workspace',
        },
      ],
      next_page_id: null,
    });
    expect(await getJson(server, '/api/v1/sandbox-specs?id=process&id=nope')).toEqual([page.items[0], null]);
  });
});

describe('app conversations', () => {
  let sandbox: Json;
  beforeAll(async () => {
    sandbox = await runningSandbox();
  });

  it('ends a start task in ERROR with a clear detail', async () => {
    const noLlm = await postJson(other(), '/api/v1/app-conversations', {});
    const failed = await waitForTask(other(), noLlm.id as string);
    expect(failed).toMatchObject({ status: 'ERROR', detail: expect.stringMatching(/No LLM model/) });

    await useScriptedLLM(server, llm, finish('x'));
    const unknown = await postJson(server, '/api/v1/app-conversations', { sandbox_id: 'nope' });
    expect(await waitForTask(server, unknown.id as string)).toMatchObject({
      status: 'ERROR',
      detail: 'Sandbox not found: nope',
    });
    // A start that fails in the sandbox it made deletes that sandbox: failed starts do not use up
    // the user's sandboxes (two here; one is running), and the next start still gets one.
    for (let i = 0; i < 2; i++) {
      const noRepository = await postJson(server, '/api/v1/app-conversations', {
        selected_repository: '/nowhere/repository',
      });
      const failedClone = await waitForTask(server, noRepository.id as string);
      expect(failedClone).toMatchObject({
        status: 'ERROR',
        detail: expect.stringMatching(/^Cloning \/nowhere\/repository failed/),
      });
      const [gone] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${failedClone.sandbox_id}`);
      expect(gone).toBeNull();
    }
    await useScriptedLLM(server, llm, finish('y'));
    const afterFailures = await postJson(server, '/api/v1/app-conversations', {});
    const ready = await waitForTask(server, afterFailures.id as string);
    expect(ready.status).toBe('READY');
    expect((await api(server, `/api/v1/sandboxes/${ready.sandbox_id}`, { method: 'DELETE' })).status).toBe(
      200,
    );

    const badBody = await api(server, '/api/v1/app-conversations', {
      method: 'POST',
      body: JSON.stringify({ agent_type: 'wizard' }),
    });
    expect(badBody.status).toBe(422);
    // A repository or branch git would read as an option is refused before anything starts.
    for (const bad of [
      { selected_repository: '--upload-pack=touch x' },
      { selected_repository: 'owner/repo', selected_branch: '-b' },
    ]) {
      const refused = await api(server, '/api/v1/app-conversations', {
        method: 'POST',
        body: JSON.stringify(bad),
      });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
    }
  });

  it('streams the start as one JSON array, from WORKING to READY', async () => {
    await useScriptedLLM(server, llm, finish('streamed'));
    const res = await api(server, '/api/v1/app-conversations/stream-start', {
      method: 'POST',
      body: JSON.stringify({
        sandbox_id: sandbox.id,
        initial_message: { content: [{ type: 'text', text: 'stream' }] },
        not_a_member: 1,
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const text = await res.text();
    expect(text.startsWith('[\n')).toBe(true);
    const tasks = JSON.parse(text) as Json[];
    expect(tasks.map((t) => t.status)).toEqual([
      'WORKING',
      'WAITING_FOR_SANDBOX',
      'PREPARING_REPOSITORY',
      'RUNNING_SETUP_SCRIPT',
      'SETTING_UP_GIT_HOOKS',
      'STARTING_CONVERSATION',
      'READY',
    ]);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(1);
    // The request as OpenHands serializes it: every member, unknown ones dropped.
    expect(tasks[0]!.request).toEqual({
      sandbox_id: sandbox.id,
      initial_message: { content: [{ type: 'text', text: 'stream' }] },
      processors: null,
      llm_model: null,
      selected_repository: null,
      selected_branch: null,
      git_provider: null,
      title: null,
      trigger: null,
      pr_number: [],
      parent_conversation_id: null,
      agent_type: 'default',
    });
  });

  it('searches with filters and cursor pages, counts, and isolates users', async () => {
    const first = await startIn(sandbox.id as string, 'Alpha 100% task');
    const second = await startIn(sandbox.id as string, 'Beta task');
    const ids = [second.app_conversation_id, first.app_conversation_id];

    const titled = await getJson<{ items: Json[] }>(
      server,
      '/api/v1/app-conversations/search?title__contains=100%25',
    );
    expect(titled.items.map((c) => c.id)).toEqual([first.app_conversation_id]);
    const seen: unknown[] = [];
    let pageId: string | null = null;
    do {
      const q: string = pageId ? `&page_id=${pageId}` : '';
      const page: { items: Json[]; next_page_id: string | null } = await getJson(
        server,
        `/api/v1/app-conversations/search?limit=1&title__contains=task${q}`,
      );
      seen.push(...page.items.map((c) => c.id));
      pageId = page.next_page_id;
    } while (pageId);
    expect(seen).toEqual(ids);
    expect(await getJson(server, '/api/v1/app-conversations/count?title__contains=task')).toBe(2);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await getJson(server, `/api/v1/app-conversations/count?created_at__gte=${future}`)).toBe(0);
    expect((await api(server, '/api/v1/app-conversations/count?created_at__gte=yesterday')).status).toBe(422);

    const tasks = await getJson<{ items: Json[] }>(
      server,
      `/api/v1/app-conversations/start-tasks/search?conversation_id__eq=${first.app_conversation_id}`,
    );
    expect(tasks.items.map((t) => t.id)).toEqual([first.id]);
    expect(
      await getJson(
        server,
        `/api/v1/app-conversations/start-tasks/count?conversation_id__eq=${first.app_conversation_id}`,
      ),
    ).toBe(1);

    expect(await getJson(other(), `/api/v1/app-conversations?ids=${ids[0]}`)).toEqual([null]);
    expect(await getJson(other(), `/api/v1/app-conversations/start-tasks?ids=${first.id}`)).toEqual([null]);
    expect(await getJson(other(), `/api/v1/events/count?conversation_id__eq=${ids[0]}`)).toBe(0);
    expect(await getJson(other(), '/api/v1/app-conversations/count')).toBe(0);
  });

  it("starts sub-conversations in the parent's sandbox and lists them with the parent", async () => {
    const parent = await startIn(sandbox.id as string, 'Parent work');
    const child = await startIn('', 'Child work', {
      sandbox_id: null,
      parent_conversation_id: parent.app_conversation_id,
    });
    expect(child).toMatchObject({ status: 'READY', sandbox_id: sandbox.id });
    const [view] = await getJson<Json[]>(
      server,
      `/api/v1/app-conversations?ids=${parent.app_conversation_id}`,
    );
    expect(view!.sub_conversation_ids).toEqual([child.app_conversation_id]);
    const [childView] = await getJson<Json[]>(
      server,
      `/api/v1/app-conversations?ids=${child.app_conversation_id}`,
    );
    expect(childView!.parent_conversation_id).toBe(parent.app_conversation_id);
    const listed = await getJson<{ items: Json[] }>(
      server,
      '/api/v1/app-conversations/search?title__contains=work',
    );
    expect(listed.items.map((c) => c.id)).toEqual([parent.app_conversation_id]);
    const withSubs = await getJson<{ items: Json[] }>(
      server,
      '/api/v1/app-conversations/search?title__contains=work&include_sub_conversations=true',
    );
    expect(withSubs.items).toHaveLength(2);
    const orphan = await api(server, '/api/v1/app-conversations', {
      method: 'POST',
      body: JSON.stringify({ parent_conversation_id: '0'.repeat(32) }),
    });
    expect(orphan.status).toBe(422);
  });

  it('resumes a paused sandbox to start a conversation in it; mirrors refuse work with a 409', async () => {
    await postJson(server, `/api/v1/sandboxes/${sandbox.id}/pause`);
    const task = await startIn(sandbox.id as string, 'Wake up');
    expect(task.status).toBe('READY');
    expect((await getJson<Json[]>(server, `/api/v1/sandboxes?id=${sandbox.id}`))[0]).toMatchObject({
      status: 'RUNNING',
    });

    const id = task.app_conversation_id as string;
    const send = await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'hi' }] }),
    });
    expect(send.status).toBe(409);
    expect(((await send.json()) as { detail: string }).detail).toMatch(/runs in sandbox/);
    const info = await getJson(server, `/api/conversations/${id}`);
    expect(info).toMatchObject({ id: expect.any(String), title: 'Wake up' });
  });

  it("starts with the user's confirmation mode, analyzer, condenser, budget and sub-agents, as OpenHands' app server does", async () => {
    // The sandbox's agent server has settings of its own: what the user's decide travels with the start.
    await useScriptedLLM(server, llm, finish('careful'));
    const choices = {
      confirmation_mode: true,
      security_analyzer: 'llm',
      condenser_max_size: 50,
      max_budget_per_task: 5,
      enable_sub_agents: true,
    };
    await postJson(server, '/api/settings', choices);
    const started = await postJson(server, '/api/v1/app-conversations', {
      sandbox_id: sandbox.id,
      initial_message: { content: [{ type: 'text', text: 'Careful work' }] },
    });
    const task = await waitForTask(server, started.id as string);
    const id = task.app_conversation_id as string;
    const info = await getJson<Json>(server, `/api/conversations/${id}`);
    expect(info).toMatchObject({
      confirmation_policy: { kind: 'ConfirmRisky' },
      security_analyzer: { kind: 'LLMSecurityAnalyzer' },
      agent: { condenser: { kind: 'LLMSummarizingCondenser', max_size: 50, keep_first: 4 } },
    });
    expect(((info.agent as Json).tools as Json[]).map((t) => t.name)).toEqual([
      'terminal',
      'file_editor',
      'task_tracker',
      'task_tool_set',
    ]);
    // The budget shows in the agent LLM's metrics once the run has used it.
    await eventually(async () => {
      const [view] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${id}`);
      return (view!.metrics as Json | null)?.max_budget_per_task === 5 ? true : undefined;
    });
    // A POST replaces every choice it leaves out with its default (the LLM is kept).
    await postJson(server, '/api/settings', { enable_default_condenser: false });
    const plain = await waitForTask(
      server,
      (await postJson(server, '/api/v1/app-conversations', { sandbox_id: sandbox.id })).id as string,
    );
    const without = await getJson<Json>(server, `/api/conversations/${plain.app_conversation_id}`);
    expect((without.agent as Json).condenser ?? null).toBeNull();
    expect(((without.agent as Json).tools as Json[]).map((t) => t.name)).not.toContain('task_tool_set');
    await postJson(server, '/api/settings', {}); // every choice back to its default (the LLM is kept)
  });

  it("commits as the user's git name and email, or as OpenHands' default identity", async () => {
    /** The author of a commit the agent makes in a new conversation in the sandbox's workspace. */
    const author = async (identity: Json): Promise<string | undefined> => {
      const command = "git commit -q --allow-empty -m work && git log -1 --format='author=%an <%ae>;'";
      await useScriptedLLM(server, llm, [
        { toolCalls: [{ name: 'terminal', arguments: { command, summary: 'commit' } }] },
        ...finish('committed'),
      ]);
      await postJson(server, '/api/settings', identity); // replaces the other choices; keeps the LLM
      const started = await postJson(server, '/api/v1/app-conversations', {
        sandbox_id: sandbox.id,
        initial_message: { content: [{ type: 'text', text: 'Commit your work' }] },
      });
      const id = (await waitForTask(server, started.id as string)).app_conversation_id as string;
      return eventually(async () => {
        const page = await getJson<{ items: Json[] }>(
          server,
          `/api/conversations/${id}/events/search?kind=ObservationEvent&limit=100`,
        );
        const output = page.items.flatMap((event) => (event.observation as { content: Json[] }).content);
        return /author=(.*?);/.exec(output.map((part) => part.text).join('\n'))?.[1];
      });
    };
    expect(await author({ git_user_name: 'Ada Lovelace', git_user_email: 'ada@example.com' })).toBe(
      'Ada Lovelace <ada@example.com>',
    );
    expect(await author({})).toBe('openhands <openhands@all-hands.dev>');
  });

  it("stores the user's MCP servers, with the search key's server, in the sandbox at each start", async () => {
    /** The MCP servers the sandbox's agent server holds for a new app conversation's start. */
    const sandboxServers = async (): Promise<Json[]> => {
      const started = await postJson(server, '/api/v1/app-conversations', { sandbox_id: sandbox.id });
      const id = (await waitForTask(server, started.id as string)).app_conversation_id as string;
      const [view] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${id}`);
      const agentServer = {
        url: new URL(view!.conversation_url as string).origin,
        key: view!.session_api_key as string,
      };
      const settings = await getJson<{ mcp_config: Record<string, Json[] | null> | null }>(
        agentServer,
        '/api/settings',
      );
      return [...(settings.mcp_config?.shttp_servers ?? []), ...(settings.mcp_config?.stdio_servers ?? [])];
    };
    await useScriptedLLM(server, llm, []);
    const tool = { name: 'tool', command: 'node', args: ['tool.js'], env: {} };
    await postJson(server, '/api/settings', {
      mcp_config: { stdio_servers: [tool] },
      search_api_key: 'tvly-secret',
    });
    expect(await sandboxServers()).toEqual([
      { name: 'tavily', url: CLOSED_LOOPBACK_MCP, api_key: null, timeout: 60 },
      expect.objectContaining({ name: 'tool' }),
    ]);
    // A server the user removed is gone from the sandbox at the next start (the search key is kept).
    await postJson(server, '/api/settings', {});
    expect(await sandboxServers()).toEqual([
      { name: 'tavily', url: CLOSED_LOOPBACK_MCP, api_key: null, timeout: 60 },
    ]);
  });

  it('deletes an app conversation through the legacy route, and its sandbox with the last one', async () => {
    const own = await runningSandbox();
    const first = await startIn(own.id as string, 'First to delete');
    const second = await startIn(own.id as string, 'Second to delete');
    const firstId = first.app_conversation_id as string;
    expect((await api(server, `/api/conversations/${firstId}`, { method: 'DELETE' })).status).toBe(200);
    expect(await getJson(server, `/api/v1/app-conversations?ids=${firstId}`)).toEqual([null]);
    expect(await getJson(server, `/api/v1/events/count?conversation_id__eq=${firstId}`)).toBe(0);
    expect(await getJson(server, `/api/v1/app-conversations/start-tasks?ids=${first.id}`)).toEqual([null]);
    expect((await getJson<Json[]>(server, `/api/v1/sandboxes?id=${own.id}`))[0]).toMatchObject({
      status: 'RUNNING',
    });
    // Gone from the sandbox's agent server too.
    const agent = { url: (own.exposed_urls as Json[])[0]!.url as string, key: own.session_api_key as string };
    expect(await getJson(agent, `/api/conversations?ids=${firstId}`)).toEqual([null]);

    expect(
      (await api(server, `/api/conversations/${second.app_conversation_id}`, { method: 'DELETE' })).status,
    ).toBe(200);
    expect(await getJson(server, `/api/v1/sandboxes?id=${own.id}`)).toEqual([null]);
    expect(existsSync(join(server.dataDir, 'sandboxes', own.id as string))).toBe(false);
  });

  it('reads MISSING when a sandbox process dies, and resume starts it again', async () => {
    const own = await runningSandbox();
    const record = await server.controlPlane!.sandboxes.get(
      own.created_by_user_id as string,
      own.id as string,
    );
    process.kill(record!.pid!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    expect((await getJson<Json[]>(server, `/api/v1/sandboxes?id=${own.id}`))[0]).toMatchObject({
      status: 'MISSING',
      session_api_key: null,
      exposed_urls: null,
    });
    expect(await postJson(server, `/api/v1/sandboxes/${own.id}/resume`)).toEqual({ success: true });
    const back = await settled(own.id as string);
    expect(back).toMatchObject({ status: 'RUNNING', session_api_key: own.session_api_key });
    const revived = await server.controlPlane!.sandboxes.get(
      own.created_by_user_id as string,
      own.id as string,
    );
    expect(revived!.pid).not.toBe(record!.pid); // a new process
    expect((await fetch(`${(back.exposed_urls as Json[])[0]!.url}/alive`)).status).toBe(200);
    expect((await api(server, `/api/v1/sandboxes/${own.id}`, { method: 'DELETE' })).status).toBe(200);
  });
});
