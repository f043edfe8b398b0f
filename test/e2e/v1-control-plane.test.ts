// The V1 flow the OpenHands web UI uses, through /api/v1 and the conversation URL's WebSocket only:
// start an app conversation (a sandbox process with its own agent server), watch it run, pause and
// resume its sandbox mid-run, then restart the control plane and find everything again. Sandboxes
// run under bwrap (test/server/v1-api.test.ts runs the process provider).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, processState } from '../../src/sandbox/process-tree.js';
import { getWithBody } from '../support/http.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';
import { eventually, getJson, type Json, postJson, useScriptedLLM, waitForTask } from '../support/v1.js';
import { connect } from '../support/ws.js';

const llm = new ScriptedLLM();
const dataDir = tempDir('agentd-v1-');
let server: TestServer;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ dataDir, controlPlane: { warmSpare: true, sandboxProvider: 'bwrap' } });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const count = (conversationHex: string) =>
  getJson<number>(server, `/api/v1/events/count?conversation_id__eq=${conversationHex}`);

describe('V1 control plane, end to end', () => {
  it('creates, runs, pauses and resumes, and survives a control-plane restart', async () => {
    await useScriptedLLM(server, llm, [
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: 'sleep 1.5 && echo slept-well', summary: 'wait' } },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Finished after the nap.' } }] },
    ]);

    // create → poll the start task → READY
    const task = await postJson(server, '/api/v1/app-conversations', {
      initial_message: { role: 'user', content: [{ type: 'text', text: 'Take a short nap, then finish.' }] },
    });
    expect(task).toMatchObject({ status: 'WORKING', sandbox_id: null, app_conversation_id: null });
    expect(task.id).toMatch(/^[0-9a-f]{32}$/);
    const ready = await waitForTask(server, task.id as string);
    expect(ready).toMatchObject({ status: 'READY', detail: null });
    const conversationId = ready.app_conversation_id as string;
    const sandboxId = ready.sandbox_id as string;
    expect(conversationId).toMatch(/^[0-9a-f]{32}$/);
    expect(ready.agent_server_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const [conversation] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${conversationId}`);
    expect(conversation).toMatchObject({
      id: conversationId,
      sandbox_id: sandboxId,
      sandbox_status: 'RUNNING',
      title: 'Take a short nap, then finish.',
      llm_model: 'openai/scripted-model',
      conversation_url: `${ready.agent_server_url}/api/conversations/${conversationId}`,
    });
    const sessionKey = conversation!.session_api_key as string;
    expect(sessionKey).toBeTruthy();

    // events over the WebSocket at the conversation URL, as the UI opens it
    const host = new URL(conversation!.conversation_url as string).host;
    const ws = await connect(
      `ws://${host}/sockets/events/${conversationId}?resend_all=true&session_api_key=${sessionKey}`,
    );
    const isTerminalAction = (f: unknown) =>
      (f as Json).kind === 'ActionEvent' && (f as Json).tool_name === 'terminal';
    await ws.next(isTerminalAction);

    // pause mid-run (while the agent's command sleeps): PAUSED, every process stopped, no new events
    const [sandboxBefore] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${sandboxId}`);
    expect(sandboxBefore).toMatchObject({ status: 'RUNNING' });
    const owner = sandboxBefore!.created_by_user_id as string;
    const agentPid = (await server.controlPlane!.sandboxes.get(owner, sandboxId))!.pid!;
    const isSleep = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep');
      } catch {
        return false;
      }
    };
    await eventually(async () => (descendants(agentPid).some(isSleep) ? true : undefined));
    expect(await postJson(server, `/api/v1/sandboxes/${sandboxId}/pause`, {})).toEqual({ success: true });
    const [paused] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${sandboxId}`);
    expect(paused).toMatchObject({ status: 'PAUSED', session_api_key: null, exposed_urls: null });
    const tree = [agentPid, ...descendants(agentPid)];
    expect(tree.some(isSleep)).toBe(true);
    for (const pid of tree) expect(processState(pid)).not.toBe('running');
    const [pausedConversation] = await getJson<Json[]>(
      server,
      `/api/v1/app-conversations?ids=${conversationId}`,
    );
    expect(pausedConversation).toMatchObject({
      sandbox_status: 'PAUSED',
      execution_status: null,
      conversation_url: null,
      session_api_key: null,
    });
    const framesAtPause = ws.frames.length;
    const storedAtPause = await count(conversationId);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(ws.frames.length).toBe(framesAtPause);
    expect(await count(conversationId)).toBe(storedAtPause);

    // resume: the run carries on and finishes
    expect(await postJson(server, `/api/v1/sandboxes/${sandboxId}/resume`, {})).toEqual({ success: true });
    const observation = (await ws.next(
      (f) => (f as Json).kind === 'ObservationEvent' && (f as Json).tool_name === 'terminal',
      20_000,
    )) as { observation: { content: { text: string }[] } };
    expect(JSON.stringify(observation.observation)).toContain('slept-well');
    await ws.next((f) => (f as Json).kind === 'ActionEvent' && (f as Json).tool_name === 'finish', 20_000);
    await ws.next((f) => (f as Json).key === 'execution_status' && (f as Json).value === 'finished', 20_000);
    ws.close();

    // the control plane's store has every event, in the sandbox's order
    const sandboxEvents = await getJson<{ items: Json[] }>(
      { url: ready.agent_server_url as string, key: sessionKey },
      `/api/conversations/${conversationId}/events/search?limit=100`,
    );
    // The conversation works in the sandbox's workspace, at the path OpenHands sandboxes use.
    const inSandbox = await getJson<Json>(
      { url: ready.agent_server_url as string, key: sessionKey },
      `/api/conversations/${conversationId}`,
    );
    expect(inSandbox.workspace).toMatchObject({ working_dir: '/workspace/project' });
    const synced = await eventually(async () => {
      const page = await getJson<{ items: Json[] }>(
        server,
        `/api/v1/events/search?conversation_id__eq=${conversationId}&limit=100`,
      );
      return page.items.length >= sandboxEvents.items.length ? page.items : undefined;
    });
    expect(synced.map((e) => e.id)).toEqual(sandboxEvents.items.map((e) => e.id));
    expect(synced).toEqual(sandboxEvents.items);
    const finished = await eventually(async () => {
      const [c] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${conversationId}`);
      return c?.execution_status === 'finished' ? c : undefined;
    });
    expect(finished.metrics).toMatchObject({ model_name: 'openai/scripted-model' });

    // restart the control plane: conversation, sandbox and events are all there
    await server.close();
    server = await startServer({ dataDir, controlPlane: { warmSpare: true, sandboxProvider: 'bwrap' } });
    const page = await getJson<{ items: Json[] }>(server, '/api/v1/app-conversations/search');
    expect(page.items.map((c) => c.id)).toEqual([conversationId]);
    expect(page.items[0]).toMatchObject({ sandbox_status: 'MISSING', execution_status: null });
    const sandboxes = await getJson<{ items: Json[] }>(server, '/api/v1/sandboxes/search');
    expect(sandboxes.items).toMatchObject([{ id: sandboxId, status: 'MISSING', session_api_key: null }]);
    const all = await getJson<{ items: Json[] }>(server, '/api/v1/events/search?limit=100');
    expect(all.items.map((e) => e.id)).toEqual(sandboxEvents.items.map((e) => e.id));
    const ids = sandboxEvents.items.slice(0, 3).map((e) => e.id as string);
    const batch = await getJson<Json[]>(
      server,
      `/api/v1/events?${ids.map((id) => `id=${id}`).join('&')}&id=nope`,
    );
    expect(batch.map((e) => e?.id ?? null)).toEqual([...ids, null]);
    const legacy = await getWithBody(
      `${server.url}/api/conversations/${conversationId}/events`,
      JSON.stringify(ids),
      { 'X-Session-API-Key': server.key },
    );
    expect(legacy.status).toBe(200);
    expect((legacy.json() as Json[]).map((e) => e.id)).toEqual(ids);

    // resuming a MISSING sandbox starts it again; its conversation is still there
    expect(await postJson(server, `/api/v1/sandboxes/${sandboxId}/resume`, {})).toEqual({ success: true });
    const revived = await eventually(async () => {
      const [c] = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${conversationId}`);
      return c?.sandbox_status === 'RUNNING' && c.execution_status ? c : undefined;
    });
    expect(revived.conversation_url).toMatch(new RegExp(`/api/conversations/${conversationId}$`));
    expect(existsSync(join(dataDir, 'sandboxes', sandboxId, 'workspace'))).toBe(true);
  });
});
