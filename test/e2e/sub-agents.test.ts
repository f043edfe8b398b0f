// Sub-agent delegation (OpenHands' task_tool_set), through the real API against the scripted LLM:
// the parent's agent calls `task`, a child conversation of the named type does the work in the same
// workspace and its report comes back as the TaskObservation. The parent and its sub-agents share an
// API key (a sub-agent runs on its parent's LLM), so one routing script answers both, telling them
// apart by the system prompt (a sub-agent's carries its type's instructions).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptStep } from '../../src/llm/index.js';
import {
  allEvents,
  type Ev,
  info,
  type StartOptions,
  serverAndLlm,
  startConversation,
  waitForStatus,
} from '../support/conversation.js';
import { api, startServer, tempDir } from '../support/server.js';

const home = tempDir('agentd-subagent-home-');
const env = serverAndLlm({ skillsHome: home });

/**
 * A workspace with a project sub-agent `echoer` (terminal only) whose instructions mark its requests,
 * `hooker`, which would run a hook of the workspace's own, and `odd`, with a condenser agentd has not.
 */
function workspace(): string {
  const dir = tempDir('agentd-subagent-ws-');
  mkdirSync(join(dir, '.agents', 'agents'), { recursive: true });
  writeFileSync(
    join(dir, '.agents', 'agents', 'echoer.md'),
    '---\nname: echoer\ndescription: Runs one echo and reports it\ntools:\n  - terminal\n---\nECHOER-INSTRUCTIONS: run what you are asked, report the output.\n',
  );
  writeFileSync(
    join(dir, '.agents', 'agents', 'hooker.md'),
    '---\nname: hooker\ntools: [terminal]\nhooks:\n  PreToolUse:\n    - matcher: "*"\n      hooks:\n        - type: command\n          command: touch hooked\n---\nHOOKER\n',
  );
  writeFileSync(
    join(dir, '.agents', 'agents', 'odd.md'),
    '---\nname: odd\ncondenser:\n  kind: PipelineCondenser\n---\nODD\n',
  );
  return dir;
}

const systemText = (request: RecordedRequest) =>
  JSON.stringify(
    (request.body.messages as { role: string }[] | undefined)?.filter((m) => m.role === 'system'),
  );
const isEchoer = (request: RecordedRequest) => systemText(request).includes('ECHOER-INSTRUCTIONS');
const task = (args: Record<string, unknown>): ScriptStep => ({
  toolCalls: [{ name: 'task', arguments: args }],
});
const finish = (message: string): ScriptStep => ({ toolCalls: [{ name: 'finish', arguments: { message } }] });
const terminal = (command: string): ScriptStep => ({
  toolCalls: [{ name: 'terminal', arguments: { command } }],
});

/** Two scripts in one: the parent's steps and the echoer's, each consumed in its own order. */
function routed(parent: ScriptStep[], child: ScriptStep[]) {
  let p = 0;
  let c = 0;
  return (request: RecordedRequest) =>
    (isEchoer(request) ? child[c++] : parent[p++]) ?? { text: 'The scripted LLM has no more steps.' };
}

const observationsOf = (events: Ev[], tool: string) =>
  events
    .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === tool)
    .map((e) => e.observation as Record<string, unknown>);
const textOf = (observation: Record<string, unknown>) =>
  (observation.content as { text: string }[]).map((c) => c.text).join('');

function startParent(script: (request: RecordedRequest) => ScriptStep, options: StartOptions = {}) {
  return startConversation(env.server, env.llm, script, {
    workingDir: workspace(),
    tools: ['terminal', 'task_tool_set'],
    message: 'Delegate the echo.',
    ...options,
  });
}

describe('sub-agent tasks', () => {
  it('runs a task in a child conversation of the named type and answers with its report', async () => {
    const script = routed(
      [
        task({ description: 'Echo hello', prompt: 'Run: echo sub-hello', subagent_type: 'echoer' }),
        finish('all done'),
      ],
      [terminal('echo sub-hello'), finish('REPORT: the shell printed sub-hello')],
    );
    const { id: parent, key, workingDir: dir } = await startParent(script);
    expect(await waitForStatus(env.server, parent, ['finished', 'error'])).toBe('finished');

    const events = await allEvents(env.server, parent);
    const [observation] = observationsOf(events, 'task');
    expect(observation).toMatchObject({
      kind: 'TaskObservation',
      task_id: 'task_00000001',
      subagent: 'echoer',
      status: 'completed',
      is_error: false,
    });
    expect(textOf(observation!)).toBe('REPORT: the shell printed sub-hello');
    // The parent's tool list offers `task`, its description naming the sub-agent types.
    const prompt = events.find((e) => e.kind === 'SystemPromptEvent') as unknown as {
      tools: { title: string; description: string }[];
    };
    const definition = prompt.tools.find((t) => t.title === 'task');
    expect(definition?.description).toContain('**echoer**: Runs one echo and reports it (tools: terminal)');
    expect(definition?.description).toContain('**general-purpose**');
    // What the parent's LLM read back: the task's id and status, then the report.
    const requests = env.llm.requestsFor(key).filter((r) => !isEchoer(r));
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('Task ID: task_00000001');

    // The child: a conversation of its own under the parent, in the same workspace, titled and tagged.
    const parentInfo = await info(env.server, parent);
    const [child] = parentInfo.sub_conversation_ids as string[];
    const childInfo = await info(env.server, child!);
    expect(childInfo).toMatchObject({
      parent_conversation_id: parent,
      title: 'Echo hello',
      tags: { taskid: 'task_00000001', subagent: 'echoer' },
      execution_status: 'finished',
      workspace: { working_dir: dir },
    });
    const childEvents = await allEvents(env.server, child!);
    expect(textOf(observationsOf(childEvents, 'terminal')[0]!)).toContain('sub-hello');
    // Its agent: the echoer's tools (and the built-ins), its instructions after agentd's prompt.
    const childRequest = env.llm.requestsFor(key).find(isEchoer)!;
    const offered = (childRequest.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered.sort()).toEqual(['finish', 'terminal', 'think']);
    // The task's spend shows in the parent's stats under its own usage id.
    const usage = (parentInfo.stats as { usage_to_metrics: Record<string, unknown> }).usage_to_metrics;
    expect(usage['task:task_00000001']).toMatchObject({ accumulated_token_usage: expect.any(Object) });
  });

  it("holds a task to its parent's hooks: a command the parent may not run, its sub-agent may not either", async () => {
    const guard = join(tempDir('agentd-subagent-hooks-'), 'guard.sh');
    writeFileSync(guard, 'case "$(cat)" in *forbidden*) echo "not here" >&2; exit 2 ;; esac\nexit 0\n', {
      mode: 0o755,
    });
    const script = routed(
      [
        task({ description: 'Try it', prompt: 'Run: echo forbidden-word', subagent_type: 'echoer' }),
        finish('parent done'),
      ],
      [terminal('echo forbidden-word'), finish('REPORT: tried')],
    );
    const { id: parent } = await startParent(script, {
      extra: { hook_config: { pre_tool_use: [{ matcher: 'terminal', hooks: [{ command: guard }] }] } },
    });
    expect(await waitForStatus(env.server, parent, ['finished', 'error'])).toBe('finished');
    const [child] = (await info(env.server, parent)).sub_conversation_ids as string[];
    expect((await info(env.server, child!)).hook_config).toMatchObject({
      pre_tool_use: [{ matcher: 'terminal' }],
    });
    const childEvents = await allEvents(env.server, child!);
    expect(childEvents.find((e) => e.kind === 'UserRejectObservation')).toMatchObject({
      tool_name: 'terminal',
      rejection_source: 'hook',
      rejection_reason: 'not here',
    });
    expect(observationsOf(childEvents, 'terminal')).toEqual([]);
  });

  it('resumes a task by its id in the same child conversation', async () => {
    const script = routed(
      [
        task({ prompt: 'Run: echo first', subagent_type: 'echoer' }),
        task({ prompt: 'Run: echo second', subagent_type: 'echoer', resume: 'task_00000001' }),
        finish('done'),
      ],
      [terminal('echo first'), finish('first done'), terminal('echo second'), finish('second done')],
    );
    const { id } = await startParent(script);
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const tasks = observationsOf(await allEvents(env.server, id), 'task');
    expect(tasks.map((t) => [t.task_id, t.status, textOf(t)])).toEqual([
      ['task_00000001', 'completed', 'first done'],
      ['task_00000001', 'completed', 'second done'],
    ]);
    const children = (await info(env.server, id)).sub_conversation_ids as string[];
    expect(children).toHaveLength(1);
    const messages = (await allEvents(env.server, children[0]!)).filter(
      (e) => e.kind === 'MessageEvent' && e.source === 'user',
    );
    expect(messages).toHaveLength(2);
  });

  it('answers an unknown type, an unknown task and a sub-agent that fails with an error the agent reads', async () => {
    const script = routed(
      [
        task({ prompt: 'x', subagent_type: 'no-such-agent' }),
        task({ prompt: 'x', subagent_type: 'echoer', resume: 'task_000000ff' }),
        task({ prompt: 'x', subagent_type: 'hooker' }),
        task({ prompt: 'x', subagent_type: 'odd' }),
        task({ prompt: 'Run: echo partial', subagent_type: 'echoer' }),
        finish('done'),
      ],
      // The echoer's LLM fails after one step: the task ends in error with what it had said.
      [
        {
          text: 'Working on it: partial output so far.',
          toolCalls: [{ name: 'terminal', arguments: { command: 'echo partial' } }],
        },
        { error: { status: 400, message: 'bad request for the echoer' } },
      ],
    );
    const { id } = await startParent(script);
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const [unknownType, unknownTask, workspaceHooks, oddCondenser, failed] = observationsOf(
      await allEvents(env.server, id),
      'task',
    );
    expect(unknownType).toMatchObject({ status: 'error', is_error: true });
    expect(textOf(unknownType!)).toMatch(/Unknown sub-agent type 'no-such-agent'. Available: .*echoer/);
    expect(textOf(unknownTask!)).toContain("Task 'task_000000ff' not found");
    // A workspace's definition may not run commands of its own around the sub-agent.
    expect(textOf(workspaceHooks!)).toMatch(/Agent 'hooker' is the workspace's .* names hooks/);
    // Its condenser goes through the start's own check: a kind agentd has not is refused there.
    expect(textOf(oddCondenser!)).toMatch(
      /Unsupported condenser 'PipelineCondenser'.*agent\.condenser\.kind/,
    );
    expect((await info(env.server, id)).sub_conversation_ids).toHaveLength(1);
    expect(failed).toMatchObject({ task_id: 'task_00000001', status: 'error', is_error: true });
    expect(textOf(failed!)).toContain('bad request for the echoer');
  });

  it("takes the user's approval of a task for the actions it runs, under the parent's policy", async () => {
    const script = routed(
      [task({ prompt: 'Run: echo approved', subagent_type: 'echoer' }), finish('done')],
      [terminal('echo approved > approved.txt'), finish('wrote it')],
    );
    const { id, workingDir } = await startParent(script, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    expect(await waitForStatus(env.server, id, ['waiting_for_confirmation'])).toBe(
      'waiting_for_confirmation',
    );
    // Nothing runs before the user says yes to the task.
    expect((await info(env.server, id)).sub_conversation_ids).toEqual([]);
    const accept = await api(env.server, `/api/conversations/${id}/events/respond_to_confirmation`, {
      method: 'POST',
      body: JSON.stringify({ accept: true }),
    });
    expect(accept.status).toBe(200);
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const [child] = (await info(env.server, id)).sub_conversation_ids as string[];
    // The sub-agent ran under its parent's policy, and its action ran once the task was approved.
    expect(await info(env.server, child!)).toMatchObject({ confirmation_policy: { kind: 'AlwaysConfirm' } });
    expect(readFileSync(join(workingDir, 'approved.txt'), 'utf8')).toBe('approved\n');
    expect(textOf(observationsOf(await allEvents(env.server, id), 'task')[0]!)).toBe('wrote it');
  });

  it("runs a type on the saved LLM profile its model names (the user's own definition)", async () => {
    mkdirSync(join(home, '.agents', 'agents'), { recursive: true });
    writeFileSync(
      join(home, '.agents', 'agents', 'thrifty.md'),
      '---\nname: thrifty\ndescription: Works on the cheap model\nmodel: cheap\ntools: [terminal]\n---\nTHRIFTY\n',
    );
    writeFileSync(
      join(home, '.agents', 'agents', 'lost.md'),
      '---\nname: lost\nmodel: no-such-profile\n---\nLOST\n',
    );
    const cheapKey = `sk-${crypto.randomUUID()}`;
    env.llm.script(cheapKey, [finish('done cheaply')]);
    const profile = {
      llm: { model: 'openai/cheap', api_key: cheapKey, base_url: env.llm.openaiBaseUrl, num_retries: 0 },
    };
    expect(
      (await api(env.server, '/api/profiles/cheap', { method: 'POST', body: JSON.stringify(profile) }))
        .status,
    ).toBe(201);
    const script = routed(
      [
        task({ prompt: 'x', subagent_type: 'thrifty' }),
        task({ prompt: 'x', subagent_type: 'lost' }),
        finish('done'),
      ],
      [],
    );
    const { id, key } = await startParent(script);
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const [cheap, lost] = observationsOf(await allEvents(env.server, id), 'task');
    expect(textOf(cheap!)).toBe('done cheaply');
    expect(env.llm.requestsFor(cheapKey)).toHaveLength(1);
    expect(JSON.stringify(env.llm.requestsFor(cheapKey)[0]!.body.messages)).toContain('THRIFTY');
    expect(env.llm.requestsFor(key).some((r) => JSON.stringify(r.body.messages).includes('THRIFTY'))).toBe(
      false,
    );
    expect(textOf(lost!)).toMatch(/LLM profile 'no-such-profile', which is not there/);
  });

  it('stops the task when the parent is interrupted', async () => {
    const script = routed([task({ prompt: 'Run: sleep', subagent_type: 'echoer' })], [terminal('sleep 30')]);
    const { id } = await startParent(script);
    const children = async () => ((await info(env.server, id)).sub_conversation_ids as string[]) ?? [];
    const deadline = Date.now() + 20_000;
    while ((await children()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const [child] = await children();
    await waitForStatus(env.server, child!, ['running']);
    expect((await api(env.server, `/api/conversations/${id}/interrupt`, { method: 'POST' })).status).toBe(
      200,
    );
    expect(await waitForStatus(env.server, child!, ['paused'])).toBe('paused');
    expect((await info(env.server, id)).execution_status).toBe('paused');
  });

  it('goes on with a task cut off by a server stop: the parent resumes it by its id after the restart', async () => {
    const dataDir = tempDir('agentd-subagent-restart-');
    const first = await startServer({ dataDir, keys: ['restart-key'], skillsHome: home });
    let echoerCalls = 0;
    const parentSteps = [
      task({ prompt: 'Run: echo one', subagent_type: 'echoer' }),
      // After the restart: the agent resumes the task it lost.
      task({ prompt: 'Go on: echo two', subagent_type: 'echoer', resume: 'task_00000001' }),
      finish('resumed and done'),
    ];
    const script = (request: RecordedRequest): ScriptStep => {
      if (!isEchoer(request)) return parentSteps.shift() ?? finish('over');
      echoerCalls++;
      // The first answer never comes in time: the server stops while the task runs.
      if (echoerCalls === 1) return { delayMs: 60_000, text: 'too late' };
      return echoerCalls === 2 ? terminal('echo two') : finish('second run done');
    };
    const { id, key } = await startConversation(first, env.llm, script, {
      workingDir: workspace(),
      tools: ['terminal', 'task_tool_set'],
      message: 'Delegate.',
    });
    while (echoerCalls === 0) await new Promise((r) => setTimeout(r, 20));
    const [child] = (await info(first, id)).sub_conversation_ids as string[];
    await first.close();

    const second = await startServer({ dataDir, keys: ['restart-key'], skillsHome: home });
    try {
      expect(await waitForStatus(second, id, ['error'])).toBe('error');
      expect(await waitForStatus(second, child!, ['error'])).toBe('error');
      // The lost task's action was answered with an error; a message runs the parent on.
      const message = { role: 'user', content: [{ type: 'text', text: 'Go on.' }], run: true };
      const sent = await api(second, `/api/conversations/${id}/events`, {
        method: 'POST',
        body: JSON.stringify(message),
      });
      expect(sent.status).toBe(200);
      expect(await waitForStatus(second, id, ['finished'])).toBe('finished');
      const tasks = observationsOf(await allEvents(second, id), 'task');
      expect(tasks.map((t) => [t.task_id, t.status, textOf(t)])).toEqual([
        ['task_00000001', 'completed', 'second run done'],
      ]);
      // The same child went on; no second task conversation was made.
      expect((await info(second, id)).sub_conversation_ids).toEqual([child]);
      expect(env.llm.requestsFor(key).filter(isEchoer)).toHaveLength(3);
    } finally {
      await second.close({ remove: true });
    }
  });

  it('runs tasks of one response at once when the agent may run tools concurrently', async () => {
    // Each echoer thinks until the other has asked the LLM too: one after the other, the first would
    // never see the second and would run out of iterations.
    let parentStep = 0;
    const started = new Set<string>();
    const script = (request: RecordedRequest): ScriptStep => {
      if (!isEchoer(request)) {
        parentStep++;
        if (parentStep === 1)
          return {
            toolCalls: [
              {
                name: 'task',
                arguments: { prompt: 'Run: echo A', subagent_type: 'echoer', description: 'A' },
              },
              {
                name: 'task',
                arguments: { prompt: 'Run: echo B', subagent_type: 'echoer', description: 'B' },
              },
            ],
          };
        return finish('both done');
      }
      const which = JSON.stringify(request.body.messages).includes('echo A') ? 'A' : 'B';
      started.add(which);
      return started.size === 2
        ? finish(`report ${which}`)
        : { toolCalls: [{ name: 'think', arguments: { thought: 'wait' } }] };
    };
    const { id } = await startParent(script, { agent: { tool_concurrency_limit: 2 } });
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const tasks = observationsOf(await allEvents(env.server, id), 'task');
    expect(tasks.map((t) => [t.task_id, t.status, textOf(t)]).sort()).toEqual([
      ['task_00000001', 'completed', 'report A'],
      ['task_00000002', 'completed', 'report B'],
    ]);
  });

  it("takes the client's agent_definitions, and agent_settings' enable_sub_agents gives the task tool", async () => {
    const key = `sk-${crypto.randomUUID()}`;
    env.llm.script(key, [finish('nothing to do')]);
    const res = await api(env.server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent_settings: {
          llm: { model: 'openai/scripted', api_key: key, base_url: env.llm.openaiBaseUrl, num_retries: 0 },
          enable_sub_agents: true,
        },
        agent_definitions: [
          { name: 'from-client', description: 'Registered by the client', tools: ['terminal'] },
        ],
        workspace: { working_dir: workspace() },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    await waitForStatus(env.server, id, ['finished']);
    const offered = env.llm.requestsFor(key)[0]!.body.tools as {
      function: { name: string; description: string };
    }[];
    const taskTool = offered.find((t) => t.function.name === 'task');
    expect(offered.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['terminal', 'file_editor', 'task_tracker', 'task']),
    );
    expect(taskTool?.function.description).toContain(
      '**from-client**: Registered by the client (tools: terminal)',
    );
  });

  it("gives a start from the settings the task tool once the settings enable sub-agents (OpenHands' agent_settings)", async () => {
    const key = `sk-${crypto.randomUUID()}`;
    env.llm.script(key, [finish('nothing'), finish('nothing')]);
    const llmSettings = {
      llm_model: 'openai/scripted',
      llm_api_key: key,
      llm_base_url: env.llm.openaiBaseUrl,
    };
    const saved = await api(env.server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify(llmSettings),
    });
    expect(saved.status).toBe(200);
    const startFromSettings = async () => {
      const res = await api(env.server, '/api/conversations', {
        method: 'POST',
        body: JSON.stringify({
          workspace: { working_dir: workspace() },
          initial_message: { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        }),
      });
      const id = ((await res.json()) as { id: string }).id;
      await waitForStatus(env.server, id, ['finished']);
    };
    const offered = (n: number) =>
      (env.llm.requestsFor(key)[n]!.body.tools as { function: { name: string } }[]).map(
        (t) => t.function.name,
      );
    await startFromSettings();
    expect(offered(0)).not.toContain('task');
    const patch = await api(env.server, '/api/settings', {
      method: 'PATCH',
      body: JSON.stringify({ agent_settings_diff: { enable_sub_agents: true } }),
    });
    expect(patch.status).toBe(200);
    const view = (await patch.json()) as { agent_settings: Record<string, unknown> };
    expect(view.agent_settings.enable_sub_agents).toBe(true);
    await startFromSettings();
    expect(offered(1)).toEqual(expect.arrayContaining(['terminal', 'file_editor', 'task_tracker', 'task']));
  });
});
