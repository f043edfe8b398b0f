// POST /api/conversations/{id}/fork, driven as the SDK's RemoteConversation.fork does: the body
// {reset_metrics, id?, title?, tags?, from_event_id?}, then the fork is read back by its `id` (GET
// the conversation, search its events) and run on its own.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  finishStep,
  info,
  startConversation,
  terminalOutputs,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { conversationRecord } from '../support/records.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const fork = (id: string, body?: Record<string, unknown>) =>
  api(server, `/api/conversations/${id}/fork`, {
    method: 'POST',
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

/** A source conversation that ran one terminal command and finished. */
async function finishedSource() {
  const source = await startConversation(server, llm, [
    terminalStep('echo from-source'),
    finishStep,
    terminalStep('echo from-fork'),
    finishStep,
  ]);
  expect(await waitForStatus(server, source.id, ['finished'])).toBe('finished');
  return source;
}

describe('fork', () => {
  it('copies the events, agent and state into an idle conversation that runs on its own', async () => {
    const source = await finishedSource();
    const sourceEvents = await allEvents(server, source.id);
    const sourceInfo = await info(server, source.id);

    const forkId = randomUUID();
    const res = await fork(source.id, {
      reset_metrics: true,
      id: forkId,
      title: 'My fork',
      tags: { team: 'a' },
    });
    expect(res.status).toBe(201);
    const forked = (await res.json()) as Record<string, unknown>;
    expect(forked).toMatchObject({
      id: forkId,
      execution_status: 'idle',
      title: 'My fork',
      tags: { team: 'a', title: 'My fork' },
      forked_from_conversation_id: source.id,
      forked_from_event_id: null,
      agent: sourceInfo.agent,
      workspace: sourceInfo.workspace,
      confirmation_policy: sourceInfo.confirmation_policy,
      max_iterations: sourceInfo.max_iterations,
      stats: { usage_to_metrics: {} },
      // A native agent: no ACP model state, no agent profile (as OpenHands answers for one).
      current_model_id: null,
      available_models: [],
      supports_runtime_model_switch: false,
      launched_agent_profile: null,
    });
    expect(forked.persistence_dir).not.toBe(sourceInfo.persistence_dir);
    // GET also carries OpenHands' legacy members (one object, both shapes); the agent-server ones match.
    expect(await info(server, forkId)).toMatchObject(forked);

    // The same history under new ids, the references between events rewritten to match.
    const forkEvents = await allEvents(server, forkId);
    expect(forkEvents).toHaveLength(sourceEvents.length);
    const newIds = new Map(sourceEvents.map((e, i) => [e.id, forkEvents[i]!.id]));
    const renamed = JSON.parse(
      JSON.stringify(sourceEvents, (_key, value) =>
        typeof value === 'string' ? (newIds.get(value) ?? value) : value,
      ),
    );
    expect(forkEvents).toEqual(renamed);
    const forkIds = new Set(forkEvents.map((e) => e.id));
    expect(sourceEvents.some((e) => forkIds.has(e.id))).toBe(false);
    for (const observation of forkEvents.filter((e) => e.kind === 'ObservationEvent')) {
      const action = forkEvents.find((e) => e.id === observation.action_id);
      expect(action).toMatchObject({ kind: 'ActionEvent', tool_call_id: observation.tool_call_id });
    }
    const lastUserMessage = forkEvents.findLast((e) => e.kind === 'MessageEvent' && e.source === 'user');
    expect(forked.last_user_message_id).toBe(lastUserMessage?.id);

    // A run on the fork sees the copied history and leaves the source as it was.
    const sent = await api(server, `/api/conversations/${forkId}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'Go on.' }], run: true }),
    });
    expect(sent.status).toBe(200);
    expect(await waitForStatus(server, forkId, ['finished'])).toBe('finished');
    expect(terminalOutputs(await allEvents(server, forkId))).toEqual(['from-source', 'from-fork']);
    const forkCall = JSON.stringify(llm.requestsFor(source.key)[2]?.body);
    expect(forkCall).toContain('from-source');
    expect(forkCall).toContain('Go on.');
    expect(await allEvents(server, source.id)).toEqual(sourceEvents);
    expect((await info(server, source.id)).execution_status).toBe('finished');
  });

  it('copies a running conversation as of one moment between its appends', async () => {
    const source = await startConversation(server, llm, [
      { ...terminalStep('echo one'), delayMs: 100 },
      { ...terminalStep('echo two'), delayMs: 100 },
      finishStep,
    ]);
    await waitForStatus(server, source.id, ['running', 'finished']);
    const res = await fork(source.id, { reset_metrics: false });
    expect(res.status).toBe(201);
    const forked = (await res.json()) as { id: string; execution_status: string };
    expect(forked.execution_status).toBe('idle');
    expect(await waitForStatus(server, source.id, ['finished'])).toBe('finished');

    // Whenever the copy was taken, it is a prefix of the source's log, ids aside.
    const copied = await allEvents(server, forked.id);
    const sourceEvents = (await allEvents(server, source.id)).slice(0, copied.length);
    const newIds = new Map(sourceEvents.map((e, i) => [e.id, copied[i]!.id]));
    const renamed = JSON.parse(
      JSON.stringify(sourceEvents, (_key, value) =>
        typeof value === 'string' ? (newIds.get(value) ?? value) : value,
      ),
    );
    expect(copied).toEqual(renamed);
    expect((await info(server, forked.id)).execution_status).toBe('idle');
  });

  it('copies the metrics when asked, and with no body takes the defaults', async () => {
    const source = await finishedSource();
    const sourceInfo = await info(server, source.id);
    const kept = await fork(source.id, { reset_metrics: false });
    expect(kept.status).toBe(201);
    expect(((await kept.json()) as { stats: unknown }).stats).toEqual(sourceInfo.stats);

    // The agent's files (the task list) are copied; a link left there is not.
    const sourceDir = sourceInfo.persistence_dir as string;
    mkdirSync(sourceDir, { recursive: true }); // as the task tracker makes it when it first writes
    writeFileSync(join(sourceDir, 'TASKS.json'), '[]');
    symlinkSync('/etc/hostname', join(sourceDir, 'link'));
    const bare = await fork(source.id);
    expect(bare.status).toBe(201);
    const forked = (await bare.json()) as Record<string, unknown>;
    const forkDir = forked.persistence_dir as string;
    expect(readFileSync(join(forkDir, 'TASKS.json'), 'utf8')).toBe('[]');
    expect(existsSync(join(forkDir, 'link'))).toBe(false);
    expect(forked.id).not.toBe(source.id);
    expect(forked).toMatchObject({ title: null, tags: sourceInfo.tags, stats: { usage_to_metrics: {} } });
  });

  it('copies only the branch up to from_event_id', async () => {
    const source = await finishedSource();
    const events = await allEvents(server, source.id);
    const firstAction = events.findIndex((e) => e.kind === 'ActionEvent');
    const res = await fork(source.id, { reset_metrics: true, from_event_id: events[firstAction]!.id });
    expect(res.status).toBe(201);
    const forked = (await res.json()) as { id: string; forked_from_event_id: string };
    expect(forked.forked_from_event_id).toBe(events[firstAction]!.id);
    const copied = await allEvents(server, forked.id);
    expect(copied.map((e) => e.kind)).toEqual(events.slice(0, firstAction + 1).map((e) => e.kind));
  });

  it('answers 404 for an unknown conversation or event, 409 for a taken id or a sandboxed mirror', async () => {
    const missing = await fork(randomUUID(), { reset_metrics: true });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: expect.any(String) });

    const source = await finishedSource();
    const unknownEvent = await fork(source.id, { from_event_id: randomUUID() });
    expect(unknownEvent.status).toBe(404);
    expect(((await unknownEvent.json()) as { detail: string }).detail).toContain('from_event_id');

    const taken = await fork(source.id, { id: source.id });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { detail: string }).detail).toContain('already exists');

    const ownerId = (await server.store.conversations.get(source.id))!.ownerId;
    const mirror = conversationRecord({ ownerId, sandboxId: 'sbx-fork' });
    await server.store.conversations.create(mirror);
    const sandboxed = await fork(mirror.id, { reset_metrics: true });
    expect(sandboxed.status).toBe(409);

    const badBody = await fork(source.id, { id: 'not-a-uuid' });
    expect(badBody.status).toBe(422);
  });
});
