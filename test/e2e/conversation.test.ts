import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  info,
  shape,
  startConversation,
  waitForStatus,
  withoutStats,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer({ toolOptions: { noChangeTimeoutSeconds: 2 } });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

describe('a conversation that runs an agent', () => {
  it('runs terminal, file_editor and finish, with events in OpenHands order, live and over REST', async () => {
    const workingDir = tempDir('agentd-ws-');
    const { id, key } = await startConversation(
      server,
      llm,
      [
        {
          text: 'Let me look around.',
          toolCalls: [
            {
              name: 'terminal',
              arguments: { command: 'echo hello-from-agent && pwd', summary: 'say hello' },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'file_editor',
              arguments: {
                command: 'create',
                path: join(workingDir, 'note.txt'),
                file_text: 'written by the agent\n',
              },
            },
          ],
        },
        { toolCalls: [{ name: 'finish', arguments: { message: 'All done.' } }] },
      ],
      { message: 'Say hello and write a file.', workingDir },
    );
    const client = await connect(
      wsUrl(server.url, `/sockets/events/${id}?session_api_key=${server.key}&resend_mode=all`),
    );
    await waitForStatus(server, id, ['finished', 'error']);
    expect((await info(server, id)).execution_status).toBe('finished');
    // The run's end is announced with a full_state snapshot, as OpenHands clients expect.
    await client.next(
      (f) =>
        (f as Ev).key === 'full_state' &&
        ((f as Ev).value as { execution_status: string }).execution_status === 'finished',
    );
    client.close();

    const events = await allEvents(server, id);
    expect(withoutStats(shape(events))).toEqual([
      'SystemPromptEvent',
      'Message:user',
      'State:running',
      'Action:terminal',
      'Observation:terminal',
      'Action:file_editor',
      'Observation:file_editor',
      'Action:finish',
      'Observation:finish',
      'State:finished',
    ]);
    const [action, observation] = [
      events.find((e) => e.kind === 'ActionEvent')!,
      events.find((e) => e.kind === 'ObservationEvent')!,
    ];
    expect(action).toMatchObject({
      thought: [{ text: 'Let me look around.' }],
      summary: 'say hello',
      action: { kind: 'TerminalAction', command: 'echo hello-from-agent && pwd' },
    });
    expect(observation).toMatchObject({
      action_id: action.id,
      tool_call_id: action.tool_call_id,
      observation: { kind: 'TerminalObservation', exit_code: 0 },
    });
    expect(JSON.stringify(observation)).toContain('hello-from-agent');
    expect(readFileSync(join(workingDir, 'note.txt'), 'utf8')).toBe('written by the agent\n');
    const system = events[0] as Ev & { tools: { kind: string }[] };
    expect(system.tools.map((t) => t.kind)).toEqual([
      'TerminalTool',
      'FileEditorTool',
      'FinishTool',
      'ThinkTool',
    ]);
    expect(events.some((e) => e.key === 'stats')).toBe(true);

    // The LLM saw the tool results: the third request carries two tool messages.
    const requests = llm.requestsFor(key);
    expect(requests).toHaveLength(3);
    const lastMessages = requests[2]!.body.messages as { role: string }[];
    expect(lastMessages.filter((m) => m.role === 'tool')).toHaveLength(2);
    // Every event arrived live as well.
    expect(client.frames.length).toBeGreaterThan(events.length);
    expect(
      (await (await api(server, `/api/conversations/${id}/agent_final_response`)).json()) as unknown,
    ).toEqual({ response: 'All done.' });
  });

  it('runs parallel tool calls and answers them in call order', async () => {
    const { id } = await startConversation(
      server,
      llm,
      [
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: 'sleep 0.3; echo first' } },
            { name: 'think', arguments: { thought: 'meanwhile' } },
            { name: 'terminal', arguments: { command: 'echo third' } },
          ],
        },
        { text: 'Done.' },
      ],
      { tools: ['terminal'], agent: { tool_concurrency_limit: 3 } },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const actions = events.filter((e) => e.kind === 'ActionEvent');
    const answers = events.filter((e) => e.kind === 'ObservationEvent');
    expect(new Set(actions.map((a) => a.llm_response_id)).size).toBe(1);
    expect(actions.map((a) => (a.thought as unknown[]).length)).toEqual([0, 0, 0]);
    expect(answers.map((o) => o.tool_call_id)).toEqual(actions.map((a) => a.tool_call_id));
    expect(JSON.stringify(answers[0])).toContain('first');
    expect(JSON.stringify(answers[2])).toContain('third');
    expect(withoutStats(shape(events)).slice(-3)).toEqual([
      'Observation:terminal',
      'Message:agent',
      'State:finished',
    ]);
  });

  it('turns a text reply into an agent message and finishes', async () => {
    const { id } = await startConversation(server, llm, [{ text: 'Hello! Nothing to do.' }]);
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const reply = events.find((e) => e.kind === 'MessageEvent' && e.source === 'agent')!;
    expect(reply.llm_response_id).toBeTruthy();
  });
});

describe('the LLM from stored settings', () => {
  /** A start with no agent: the caller's settings say which LLM. */
  const startFromSettings = (extra: Record<string, unknown> = {}) =>
    api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        workspace: { working_dir: tempDir('agentd-ws-') },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ...extra,
      }),
    });

  /** Such a start that is taken (201) and runs on `model`, its key masked, to its end. */
  const runFromSettings = async (model: string, extra: Record<string, unknown> = {}) => {
    const started = await startFromSettings(extra);
    expect(started.status).toBe(201);
    const created = (await started.json()) as { id: string; agent: { llm: Record<string, unknown> } };
    expect(created.agent.llm).toMatchObject({ model, api_key: '**********' });
    await waitForStatus(server, created.id, ['finished']);
  };

  it("runs with the caller's settings when the request has no agent, and refuses clearly without them", async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ workspace: { working_dir: tempDir('agentd-ws-') } }),
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('POST /api/settings');

    const key = 'sk-from-settings';
    llm.script(key, [{ text: 'configured from settings' }]);
    await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({
        llm_model: 'openai/from-settings',
        llm_api_key: key,
        llm_base_url: llm.openaiBaseUrl,
      }),
    });
    await runFromSettings('openai/from-settings');
    expect(llm.requestsFor(key)).toHaveLength(1);
  });

  it('runs on the LLM profile activated last, all of it, until the settings change its LLM', async () => {
    const key = 'sk-from-a-profile';
    llm.script(key, [{ text: 'configured from a profile' }, { text: 'configured from the settings' }]);
    const llmOf = (model: string, apiKey: string) => ({
      model,
      api_key: apiKey,
      base_url: llm.openaiBaseUrl,
    });
    for (const [name, body] of [
      ['cheap', llmOf('openai/cheap', 'sk-never-used')],
      [
        'strong',
        { ...llmOf('openai/strong', key), temperature: 0.25, extra_headers: { 'X-Profile': 'strong' } },
      ],
    ] as const) {
      const saved = await api(server, `/api/profiles/${name}`, {
        method: 'POST',
        body: JSON.stringify({ llm: body }),
      });
      expect(saved.status).toBe(201);
    }
    expect((await api(server, '/api/profiles/strong/activate', { method: 'POST' })).status).toBe(200);
    await runFromSettings('openai/strong');
    const [sent] = llm.requestsFor(key);
    // The profile's other members came with it: the settings hold only model, key and base URL.
    expect(sent?.body.temperature).toBe(0.25);
    expect(sent?.headers['x-profile']).toBe('strong');
    expect(llm.requestsFor('sk-never-used')).toHaveLength(0);

    // The settings' model changed since: the profile is no longer what they hold.
    await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ llm_model: 'openai/changed' }),
    });
    await runFromSettings('openai/changed');
    const later = llm.requestsFor(key)[1];
    expect(later?.body.model).toBe('changed');
    expect(later?.body.temperature).toBeUndefined();
    expect(later?.headers['x-profile']).toBeUndefined();
  });

  it('runs on a saved profile named in the start (llm_profile), whichever is active', async () => {
    const key = 'sk-named-profile';
    llm.script(key, [{ text: 'on the named profile' }]);
    const side = { model: 'openai/side', api_key: key, base_url: llm.openaiBaseUrl, top_p: 0.5 };
    const saved = await api(server, '/api/profiles/side', {
      method: 'POST',
      body: JSON.stringify({ llm: side }),
    });
    expect(saved.status).toBe(201);
    await runFromSettings('openai/side', { llm_profile: 'side' });
    expect(llm.requestsFor(key)[0]?.body.top_p).toBe(0.5);

    const unknown = await startFromSettings({ llm_profile: 'nope' });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ detail: [{ loc: ['body', 'llm_profile'] }] });
    const both = await startFromSettings({ llm_profile: 'side', llm_model: 'openai/other' });
    expect(both.status).toBe(422);
  });
});

describe('error paths', () => {
  it('answers an unknown tool, bad JSON and invalid arguments with AgentErrorEvents and goes on', async () => {
    const { id } = await startConversation(server, llm, [
      { toolCalls: [{ name: 'teleport', arguments: { where: 'mars' } }] },
      { toolCalls: [{ name: 'terminal', arguments: '{"command": ' }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 42 } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'gave up' } }] },
    ]);
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const actions = events.filter((e) => e.kind === 'ActionEvent');
    const errors = events.filter((e) => e.kind === 'AgentErrorEvent').map((e) => e.error as string);
    expect(actions.slice(0, 3).map((a) => a.action ?? null)).toEqual([null, null, null]);
    expect(errors[0]).toMatch(/Tool 'teleport' not found/);
    expect(errors[1]).toMatch(/unparseable JSON/);
    expect(errors[2]).toMatch(/Error validating tool 'terminal'.*command/);
  });

  it('ends in error with a ConversationErrorEvent when the LLM rejects the key', async () => {
    const { id } = await startConversation(server, llm, [
      { error: { status: 401, message: 'invalid api key' } },
    ]);
    await waitForStatus(server, id, ['error']);
    const events = await allEvents(server, id);
    const error = events.find((e) => e.kind === 'ConversationErrorEvent')!;
    expect(error).toMatchObject({ code: 'LLMAuthenticationError', source: 'environment' });
    expect(withoutStats(shape(events)).slice(-2)).toEqual(['ConversationErrorEvent', 'State:error']);
  });

  it('stops at max_iterations with MaxIterationsReached', async () => {
    const { id } = await startConversation(
      server,
      llm,
      Array.from({ length: 5 }, (_, i) => ({
        toolCalls: [{ name: 'think', arguments: { thought: `step ${i}` } }],
      })),
      {
        max_iterations: 2,
      },
    );
    await waitForStatus(server, id, ['error']);
    const error = (await allEvents(server, id)).find((e) => e.kind === 'ConversationErrorEvent')!;
    expect(error).toMatchObject({
      code: 'MaxIterationsReached',
      detail: 'Agent reached maximum iterations limit (2).',
    });
  });

  it('detects a stuck agent repeating the same action and result', async () => {
    const { id } = await startConversation(
      server,
      llm,
      Array.from({ length: 8 }, () => ({
        toolCalls: [{ name: 'terminal', arguments: { command: 'echo same' } }],
      })),
    );
    await waitForStatus(server, id, ['stuck']);
  });

  it("takes the SDK's stuck_detection_thresholds: stuck after 2 repeats instead of 4", async () => {
    const repeats = Array.from({ length: 8 }, () => ({
      toolCalls: [{ name: 'terminal', arguments: { command: 'echo same' } }],
    }));
    const actions = async (id: string) =>
      (await allEvents(server, id)).filter((e) => e.kind === 'ActionEvent').length;
    const strict = await startConversation(server, llm, repeats, {
      extra: { stuck_detection_thresholds: { action_observation: 2 } },
    });
    await waitForStatus(server, strict.id, ['stuck']);
    expect(await actions(strict.id)).toBe(2);
    // The SDK's defaults, sent whole, are OpenHands' (and agentd's without them): 4 repeats.
    const defaults = await startConversation(server, llm, repeats, {
      extra: {
        stuck_detection_thresholds: {
          action_observation: 4,
          action_error: 3,
          monologue: 3,
          alternating_pattern: 6,
        },
      },
    });
    await waitForStatus(server, defaults.id, ['stuck']);
    expect(await actions(defaults.id)).toBe(4);
    const bad = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl } },
        workspace: { working_dir: '/tmp' },
        stuck_detection_thresholds: { monologue: 0 },
      }),
    });
    // Refused for the threshold alone (the rest of the request is one that starts).
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toContainEqual([
      'body',
      'stuck_detection_thresholds',
      'monologue',
    ]);
  });

  it('answers a tool that throws with an AgentErrorEvent and goes on', async () => {
    const { id } = await startConversation(server, llm, [
      { toolCalls: [{ name: 'file_editor', arguments: { command: 'view', path: '/definitely/not/here' } }] },
      { text: 'ok' },
    ]);
    await waitForStatus(server, id, ['finished']);
    const observation = (await allEvents(server, id)).find((e) => e.kind === 'ObservationEvent')!;
    expect(observation.observation).toMatchObject({ is_error: true });
  });
});

describe('confirmation, pause and resume', () => {
  it('waits for confirmation, then runs the pending action on accept', async () => {
    const { id, workingDir } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'touch accepted.txt' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
      ],
      { confirmation_policy: { kind: 'AlwaysConfirm' } },
    );
    await waitForStatus(server, id, ['waiting_for_confirmation']);
    expect(existsSync(join(workingDir, 'accepted.txt'))).toBe(false);
    const res = await api(server, `/api/conversations/${id}/events/respond_to_confirmation`, {
      method: 'POST',
      body: JSON.stringify({ accept: true }),
    });
    expect(res.status).toBe(200);
    await waitForStatus(server, id, ['waiting_for_confirmation', 'finished']);
    expect(existsSync(join(workingDir, 'accepted.txt'))).toBe(true);
  });

  it('rejects with one UserRejectObservation per pending action and returns to idle', async () => {
    const { id, workingDir } = await startConversation(
      server,
      llm,
      [
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: 'touch rejected1.txt' } },
            { name: 'terminal', arguments: { command: 'touch rejected2.txt' } },
          ],
        },
      ],
      { confirmation_policy: { kind: 'AlwaysConfirm' } },
    );
    await waitForStatus(server, id, ['waiting_for_confirmation']);
    await api(server, `/api/conversations/${id}/events/respond_to_confirmation`, {
      method: 'POST',
      body: JSON.stringify({ accept: false, reason: 'not now' }),
    });
    await waitForStatus(server, id, ['idle']);
    const rejections = (await allEvents(server, id)).filter((e) => e.kind === 'UserRejectObservation');
    expect(rejections).toHaveLength(2);
    expect(rejections[0]).toMatchObject({ rejection_reason: 'not now', rejection_source: 'user' });
    expect(existsSync(join(workingDir, 'rejected1.txt'))).toBe(false);
  });

  it('pauses between steps and resumes with run', async () => {
    const { id } = await startConversation(server, llm, [
      { delayMs: 400, toolCalls: [{ name: 'think', arguments: { thought: 'one' } }] },
      { toolCalls: [{ name: 'think', arguments: { thought: 'two' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'resumed and done' } }] },
    ]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await api(server, `/api/conversations/${id}/pause`, { method: 'POST' })).status).toBe(200);
    await waitForStatus(server, id, ['paused']);
    // The step in flight finishes cleanly; nothing runs after it.
    await new Promise((r) => setTimeout(r, 600));
    const paused = await allEvents(server, id);
    expect(paused.some((e) => e.kind === 'PauseEvent')).toBe(true);
    expect(paused.filter((e) => e.kind === 'ActionEvent')).toHaveLength(1);
    expect((await api(server, `/api/conversations/${id}/run`, { method: 'POST' })).status).toBe(200);
    await waitForStatus(server, id, ['finished']);
    expect((await allEvents(server, id)).filter((e) => e.kind === 'ActionEvent')).toHaveLength(3);
  });

  it('answers run with 409 while running', async () => {
    const { id } = await startConversation(server, llm, [{ delayMs: 500, text: 'slow' }]);
    await waitForStatus(server, id, ['running']);
    const res = await api(server, `/api/conversations/${id}/run`, { method: 'POST' });
    expect(res.status).toBe(409);
    await waitForStatus(server, id, ['finished']);
  });
});

describe('reconnecting with after_seq during a run', () => {
  it('gets every event exactly once across a reconnect', async () => {
    const steps = Array.from({ length: 12 }, (_, i) => ({
      delayMs: 20,
      toolCalls: [{ name: 'think', arguments: { thought: `t${i}` } }],
    }));
    const { id } = await startConversation(
      server,
      llm,
      [...steps, { toolCalls: [{ name: 'finish', arguments: { message: 'end' } }] }],
      { max_iterations: 50 },
    );
    const url = (after: number) =>
      wsUrl(server.url, `/sockets/events/${id}?session_api_key=${server.key}&after_seq=${after}`);
    type Frame = { seq: number | null; event: Ev };
    const first = await connect(url(0));
    await first.next((f) => ((f as Frame).seq ?? 0) >= 10);
    first.close();
    const seen = (first.frames as Frame[]).filter((f) => f.seq !== null);
    const last = seen[seen.length - 1]!.seq!;
    const second = await connect(url(last));
    await waitForStatus(server, id, ['finished']);
    const total = (await (await api(server, `/api/conversations/${id}/events/count`)).json()) as number;
    await second.next((f) => (f as Frame).seq === total);
    const all = [...seen, ...(second.frames as Frame[]).filter((f) => f.seq !== null)];
    expect(all.map((f) => f.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    second.close();
  });
});
