// OpenHands' /goal: the objective is sent and run, the agent's LLM audits the transcript after each
// run, and the loop sends what is missing until the objective is judged done or the cap is reached.
// Each status is a ConversationStateUpdateEvent `goal`; a stop, a client's message or a pause ends the
// loop as `interrupted`, and resume goes on from the rounds it had done, also after a restart.
import { describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  serverAndLlm,
  startConversation,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

const env = serverAndLlm();

const finish = (message: string, delayMs = 0) => ({
  toolCalls: [{ name: 'finish', arguments: { message } }],
  ...(delayMs ? { delayMs } : {}),
});
const verdict = (score: number, complete: boolean, missing = '') => ({
  text: JSON.stringify({ score, complete, missing }),
});

type Goal = {
  active: boolean;
  status: string;
  iteration: number;
  max_iterations: number;
  objective: string;
  verdict: { score: number; complete: boolean; missing: string } | null;
};

const post = (server: TestServer, path: string, body?: unknown) =>
  api(server, path, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function goals(server: TestServer, id: string): Promise<Goal[]> {
  return (await allEvents(server, id))
    .filter((e) => e.kind === 'ConversationStateUpdateEvent' && e.key === 'goal')
    .map((e) => e.value as Goal);
}

/** Polls until the goal's last status is `status` (and no longer active, unless it is `running`). */
async function goalReaches(server: TestServer, id: string, status: string): Promise<Goal[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const all = await goals(server, id);
    const last = all[all.length - 1];
    if (last?.status === status && (status === 'running' || !last.active)) return all;
    if (Date.now() > deadline) throw new Error(`goal stayed ${JSON.stringify(last)}, wanted ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const userTexts = (events: Ev[]) =>
  events
    .filter((e) => e.kind === 'MessageEvent' && e.source === 'user')
    .map((e) => (e.llm_message as { content: { text: string }[] }).content[0]?.text ?? '');

describe('/goal', () => {
  it('runs, audits and follows up until the judge finds the objective done', async () => {
    const { id, key } = await startConversation(
      env.server,
      env.llm,
      [
        finish('first try'),
        verdict(0.4, false, 'the tests do not pass'),
        finish('fixed the tests'),
        { text: 'Audit done. {"score": 1.0, "complete": true, "missing": ""}' },
      ],
      { message: '' },
    );
    expect(
      (await post(env.server, `/api/conversations/${id}/goal`, { objective: 'Make the tests pass' })).status,
    ).toBe(200);
    const statuses = await goalReaches(env.server, id, 'complete');
    expect(statuses.map((g) => [g.status, g.active, g.iteration, g.verdict?.score ?? null])).toEqual([
      ['running', true, 0, null],
      ['running', true, 1, 0.4],
      ['complete', false, 2, 1],
    ]);
    expect(statuses[0]).toMatchObject({ objective: 'Make the tests pass', max_iterations: 10 });
    await waitForStatus(env.server, id, ['finished']);
    // A reader that joins now (the web page reads only the newest events) learns the goal from the
    // socket's first frame, the full_state snapshot.
    const late = await connect(
      wsUrl(env.server.url, `/sockets/events/${id}?session_api_key=${env.server.key}&after_seq=1000000`),
    );
    type Frame = { event?: { key?: string; value?: { goal?: unknown } } };
    const snapshot = (await late.next((f) => (f as Frame).event?.key === 'full_state')) as Frame;
    late.close();
    expect(snapshot.event?.value?.goal).toMatchObject({
      status: 'complete',
      objective: 'Make the tests pass',
    });

    const texts = userTexts(await allEvents(env.server, id));
    expect(texts[0]).toBe('Make the tests pass');
    expect(texts[1]).toContain('The goal is NOT yet complete (audit iteration 1).');
    expect(texts[1]).toContain('Outstanding: the tests do not pass');
    // The judge is the agent's LLM, asked apart: one user message, no tools, the transcript without
    // the system prompt.
    const judged = env.llm.requestsFor(key)[1]!.body as {
      messages: { role: string; content: unknown }[];
      tools?: unknown[];
    };
    expect(judged.messages).toHaveLength(1);
    expect(judged.tools ?? []).toEqual([]);
    const prompt = JSON.stringify(judged.messages[0]!.content);
    expect(prompt).toContain('<objective>\\nMake the tests pass\\n</objective>');
    expect(prompt).toContain('user: Make the tests pass');
    expect(prompt).toContain('first try');
    expect(prompt).not.toContain('You are an autonomous software engineering agent');
    expect(env.llm.requestsFor(key)).toHaveLength(4);
  });

  it('stops at the cap; an answer the judge gives that is not JSON counts as not done', async () => {
    const { id } = await startConversation(env.server, env.llm, [finish('tried'), { text: 'I think so.' }], {
      message: '',
    });
    await post(env.server, `/api/conversations/${id}/goal`, { objective: 'Ship it', max_iterations: 1 });
    const last = (await goalReaches(env.server, id, 'capped')).pop()!;
    expect(last).toMatchObject({
      active: false,
      iteration: 1,
      verdict: { score: 0, complete: false, missing: 'Judge verdict could not be parsed.' },
    });
  });

  it('stops without ending the run, resumes from its rounds, and refuses what it cannot do', async () => {
    const { id, key } = await startConversation(
      env.server,
      env.llm,
      [finish('slow work', 800), finish('resumed work'), verdict(1, true)],
      { message: '' },
    );
    const goal = `/api/conversations/${id}/goal`;
    expect((await post(env.server, `${goal}/resume`)).status).toBe(400); // none started yet
    expect((await post(env.server, goal, { objective: 'Do it' })).status).toBe(200);
    const busy = await post(env.server, goal, { objective: 'Do it again' });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { detail: string }).detail).toMatch(/^A goal loop is already running/);
    await waitForStatus(env.server, id, ['running']);
    expect((await post(env.server, `${goal}/stop`)).status).toBe(200);
    expect((await goals(env.server, id)).pop()).toMatchObject({
      status: 'interrupted',
      active: false,
      iteration: 0,
    });
    // The run goes on to its end; nothing audits it.
    await waitForStatus(env.server, id, ['finished']);
    expect(env.llm.requestsFor(key)).toHaveLength(1);
    expect((await post(env.server, `${goal}/stop`)).status).toBe(200); // no loop: still a success

    expect((await post(env.server, `${goal}/resume`)).status).toBe(200);
    expect((await goalReaches(env.server, id, 'complete')).pop()).toMatchObject({ iteration: 1 });
    expect(userTexts(await allEvents(env.server, id)).pop()).toMatch(/^Resuming a goal that was paused/);
    expect((await post(env.server, `${goal}/resume`)).status).toBe(400); // completed

    expect((await post(env.server, goal, { objective: '   ' })).status).toBe(422);
    expect((await post(env.server, goal, { objective: 'x', max_iterations: 0 })).status).toBe(422);
    expect(
      (await post(env.server, `/api/conversations/${crypto.randomUUID()}/goal`, { objective: 'x' })).status,
    ).toBe(404);
    const other = await api(env.server, `${goal}/stop`, { method: 'POST', key: 'not-a-key' });
    expect(other.status).toBe(401);
  });

  it('ends as interrupted when the client sends a message or pauses; a running conversation is a 409', async () => {
    const { id } = await startConversation(
      env.server,
      env.llm,
      [finish('slow', 800), finish('answered the user')],
      {
        message: '',
      },
    );
    await post(env.server, `/api/conversations/${id}/goal`, { objective: 'Long task' });
    await waitForStatus(env.server, id, ['running']);
    const message = { role: 'user', content: [{ type: 'text', text: 'Stop that, do this' }], run: true };
    expect((await post(env.server, `/api/conversations/${id}/events`, message)).status).toBe(200);
    expect((await goals(env.server, id)).pop()).toMatchObject({ status: 'interrupted', active: false });
    await waitForStatus(env.server, id, ['finished']);

    const running = await startConversation(env.server, env.llm, [finish('busy', 800)]);
    await waitForStatus(env.server, running.id, ['running']);
    expect((await post(env.server, `/api/conversations/${running.id}/goal`, { objective: 'x' })).status).toBe(
      409,
    );
    await waitForStatus(env.server, running.id, ['finished']);

    // Paused during a step that does not finish: the run stops after it, paused.
    const slowEcho = { ...terminalStep('echo working'), delayMs: 800 };
    const paused = await startConversation(env.server, env.llm, [slowEcho, finish('never')], { message: '' });
    await post(env.server, `/api/conversations/${paused.id}/goal`, { objective: 'Will be paused' });
    await waitForStatus(env.server, paused.id, ['running']);
    await post(env.server, `/api/conversations/${paused.id}/pause`);
    expect((await goalReaches(env.server, paused.id, 'interrupted')).pop()).toMatchObject({ iteration: 0 });
  });

  it('waits while an action waits for the user (confirmation mode), and audits once the run ends', async () => {
    const { id, key } = await startConversation(
      env.server,
      env.llm,
      [terminalStep('echo confirmed'), finish('ran it'), verdict(1, true)],
      { message: '', confirmation_policy: { kind: 'AlwaysConfirm' } },
    );
    await post(env.server, `/api/conversations/${id}/goal`, { objective: 'Run the command' });
    await waitForStatus(env.server, id, ['waiting_for_confirmation']);
    // The loop does not audit a run that has not ended.
    await new Promise((r) => setTimeout(r, 600));
    expect(env.llm.requestsFor(key)).toHaveLength(1);
    expect((await goals(env.server, id)).pop()).toMatchObject({ status: 'running', active: true });
    const accept = await post(env.server, `/api/conversations/${id}/events/respond_to_confirmation`, {
      accept: true,
    });
    expect(accept.status).toBe(200);
    expect((await goalReaches(env.server, id, 'complete')).pop()).toMatchObject({ iteration: 1 });
    expect(env.llm.requestsFor(key)).toHaveLength(3);
  });

  it('resumes a goal cut off by a restart', async () => {
    const dataDir = tempDir();
    const first = await startServer({ dataDir });
    const { id, key } = await startConversation(first, env.llm, [finish('cut off', 60_000)], { message: '' });
    await post(first, `/api/conversations/${id}/goal`, { objective: 'Survive a restart' });
    await waitForStatus(first, id, ['running']);
    await first.close();
    env.llm.script(key, [finish('after the restart'), verdict(1, true)]);
    const second = await startServer({ dataDir });
    try {
      expect((await goals(second, id)).pop()).toMatchObject({ status: 'running', active: true });
      expect((await post(second, `/api/conversations/${id}/goal/resume`)).status).toBe(200);
      const statuses = await goalReaches(second, id, 'complete');
      // Marked cut off when the conversation was next used, then resumed.
      expect(statuses.map((g) => [g.status, g.active])).toEqual([
        ['running', true],
        ['interrupted', false],
        ['running', true],
        ['complete', false],
      ]);
      expect(statuses.pop()).toMatchObject({ objective: 'Survive a restart', iteration: 1 });
    } finally {
      await second.close({ remove: true });
    }
  });
});
