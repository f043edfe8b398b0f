// POST /api/conversations/{id}/navigate, driven as the SDK's RemoteConversation.navigate_to does: the
// body {event_id}, then the conversation read back (its leaf_event_id) and run on. The LLM's requests
// show which branch the agent saw; the event log shows that no branch was lost.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  finishStep,
  info,
  startConversation,
  summarizer,
  terminalOutputs,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { conversationRecord } from '../support/records.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();
const dataDir = tempDir();

beforeAll(async () => {
  await llm.start();
  server = await startServer({ dataDir, keys: ['test-key-1', 'another-user'] });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const navigate = (id: string, body: unknown) =>
  api(server, `/api/conversations/${id}/navigate`, { method: 'POST', body: JSON.stringify(body) });

async function say(id: string, text: string): Promise<void> {
  const sent = await api(server, `/api/conversations/${id}/events`, {
    method: 'POST',
    body: JSON.stringify({ role: 'user', content: [{ type: 'text', text }], run: true }),
  });
  expect(sent.status).toBe(200);
  expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
}

const isNode = (e: Ev) => e.kind !== 'ConversationStateUpdateEvent';

/** A conversation of two finished turns, "Task one" (echo first) and "Task two" (echo second). */
async function twoTurns() {
  const conversation = await startConversation(
    server,
    llm,
    [
      terminalStep('echo first'),
      finishStep,
      terminalStep('echo second'),
      finishStep,
      terminalStep('echo third'),
      finishStep,
    ],
    { message: 'Task one' },
  );
  expect(await waitForStatus(server, conversation.id, ['finished'])).toBe('finished');
  await say(conversation.id, 'Task two');
  const events = await allEvents(server, conversation.id);
  const second = events.findIndex((e) => JSON.stringify(e).includes('Task two'));
  // HEAD goes back to the end of the first turn: its last event that is a node of the tree.
  const endOfFirst = events.slice(0, second).findLast(isNode)!;
  return { ...conversation, events, endOfFirst };
}

const sentToLlm = (key: string, call: number) => JSON.stringify(llm.requestsFor(key)[call]?.body);

describe('navigate', () => {
  it('moves HEAD back: the next run sees only the path to it, and every branch stays in the log', async () => {
    const c = await twoTurns();
    expect((await info(server, c.id)).leaf_event_id).toBeNull(); // never navigated: the log's end

    const res = await navigate(c.id, { event_id: c.endOfFirst.id });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: c.id,
      leaf_event_id: c.endOfFirst.id,
      execution_status: 'finished',
    });
    expect((await info(server, c.id)).leaf_event_id).toBe(c.endOfFirst.id);
    expect(await allEvents(server, c.id)).toEqual(c.events); // moving HEAD appends nothing

    await say(c.id, 'Task three');
    // Calls 0–1 ran the first turn, 2–3 the second; call 4 is the first of the new branch.
    const call = sentToLlm(c.key, 4);
    expect(call).toContain('Task one');
    expect(call).toContain('echo first');
    expect(call).toContain('Task three');
    expect(call).not.toContain('Task two');
    expect(call).not.toContain('echo second');

    const after = await allEvents(server, c.id);
    expect(after.slice(0, c.events.length)).toEqual(c.events);
    expect(terminalOutputs(after)).toEqual(['first', 'second', 'third']);
    expect((await info(server, c.id)).leaf_event_id).toBe(after.findLast(isNode)!.id);

    // A fork of the whole log keeps its branches and HEAD (under the copies' ids): it runs on the branch.
    const forked = await api(server, `/api/conversations/${c.id}/fork`, { method: 'POST', body: '{}' });
    const fork = (await forked.json()) as { id: string; leaf_event_id: string };
    const copy = await allEvents(server, fork.id);
    expect(copy).toHaveLength(after.length);
    expect(fork.leaf_event_id).toBe(copy.findLast(isNode)!.id);
    await say(fork.id, 'Task four');
    const forkCall = sentToLlm(c.key, 6);
    expect(forkCall).toContain('Task three');
    expect(forkCall).toContain('Task four');
    expect(forkCall).not.toContain('Task two');
  });

  it('keeps the branch across a restart, and a fork from the branch copies only its path', async () => {
    const c = await twoTurns();
    expect((await navigate(c.id, { event_id: c.endOfFirst.id })).status).toBe(200);

    // A new process on the same data folder: no runtime, the branch is read from the record.
    await server.close();
    server = await startServer({ dataDir, keys: ['test-key-1', 'another-user'] });
    await say(c.id, 'Task three');
    const call = sentToLlm(c.key, 4);
    expect(call).toContain('Task three');
    expect(call).not.toContain('Task two');

    const after = await allEvents(server, c.id);
    const third = after.find((e) => e.kind === 'ActionEvent' && JSON.stringify(e).includes('echo third'))!;
    const forked = await api(server, `/api/conversations/${c.id}/fork`, {
      method: 'POST',
      body: JSON.stringify({ from_event_id: third.id }),
    });
    expect(forked.status).toBe(201);
    const copy = await allEvents(server, ((await forked.json()) as { id: string }).id);
    const copiedText = JSON.stringify(copy);
    expect(copiedText).toContain('Task one');
    expect(copiedText).toContain('Task three');
    expect(copiedText).not.toContain('Task two');
    expect(copy.at(-1)!.kind).toBe('ActionEvent');
  });

  it('with event_id null starts an empty tree: the agent sees the new message alone, after its system prompt', async () => {
    const c = await twoTurns();
    // Two moves before any event: HEAD is where the last one put it (the body's default is null).
    expect((await navigate(c.id, { event_id: c.endOfFirst.id })).status).toBe(200);
    const res = await navigate(c.id, {});
    expect(res.status).toBe(200);
    expect(((await res.json()) as { leaf_event_id: unknown }).leaf_event_id).toBeNull();

    await say(c.id, 'Task three');
    const call = llm.requestsFor(c.key)[4]!.body as { messages: { role: string }[] };
    expect(JSON.stringify(call)).not.toContain('Task one');
    expect(JSON.stringify(call)).toContain('Task three');
    expect(call.messages[0]!.role).toBe('system');
    const after = await allEvents(server, c.id);
    expect(after.filter((e) => e.kind === 'SystemPromptEvent')).toHaveLength(2);
  });

  it('answers 404 for an unknown conversation or event, 409 while running or for a sandboxed mirror, 422 for a bad body', async () => {
    const missing = await navigate(randomUUID(), { event_id: null });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: expect.any(String) });

    const running = await startConversation(server, llm, [
      { ...terminalStep('sleep 1'), delayMs: 50 },
      finishStep,
    ]);
    await waitForStatus(server, running.id, ['running']);
    const busy = await navigate(running.id, { event_id: null });
    expect(busy.status).toBe(409);
    expect(await waitForStatus(server, running.id, ['finished'])).toBe('finished');

    // Another user's conversation is unknown to the caller, its runtime in memory or not.
    const asAnother = await api(
      { ...server, key: 'another-user' },
      `/api/conversations/${running.id}/navigate`,
      {
        method: 'POST',
        body: JSON.stringify({ event_id: null }),
      },
    );
    expect(asAnother.status).toBe(404);
    expect((await info(server, running.id)).leaf_event_id).toBeNull();

    const unknownEvent = await navigate(running.id, { event_id: randomUUID() });
    expect(unknownEvent.status).toBe(404);
    expect(((await unknownEvent.json()) as { detail: string }).detail).toContain('event_id');
    expect((await info(server, running.id)).leaf_event_id).toBeNull();

    const ownerId = (await server.store.conversations.get(running.id))!.ownerId;
    const mirror = conversationRecord({ ownerId, sandboxId: 'sbx-navigate' });
    await server.store.conversations.create(mirror);
    expect((await navigate(mirror.id, { event_id: null })).status).toBe(409);

    expect((await navigate(running.id, { event_id: 42 })).status).toBe(422);
  });

  it('answers 409 while a forced condensation waits for its summary, which then lands on the branch it began on', async () => {
    const summarizerKey = `sk-${randomUUID()}`;
    llm.script(summarizerKey, () => ({ text: 'SUMMARY', delayMs: 400 }));
    const steps = [...Array.from({ length: 6 }, (_, i) => terminalStep(`echo ${i}`)), finishStep];
    const { id } = await startConversation(server, llm, steps, {
      tools: ['terminal'],
      agent: { condenser: summarizer(llm, summarizerKey, 100) },
    });
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
    const condensing = api(server, `/api/conversations/${id}/condense`, { method: 'POST' });
    while (llm.requestsFor(summarizerKey).length === 0) await new Promise((r) => setTimeout(r, 10));
    expect((await navigate(id, { event_id: null })).status).toBe(409);
    const condensed = await condensing;
    expect(condensed.status).toBe(200);
    expect(await condensed.json()).toEqual({ success: true });
    expect((await allEvents(server, id)).at(-1)).toMatchObject({ kind: 'Condensation', summary: 'SUMMARY' });
    expect((await navigate(id, { event_id: null })).status).toBe(200);
  });
});
