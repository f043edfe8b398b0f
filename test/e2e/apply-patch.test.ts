// OpenHands' GPT-5 preset against a real server: a conversation started with terminal, apply_patch and
// task_tracker, whose scripted LLM edits a file with a patch, then sends one that does not fit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  serverAndLlm,
  startConversation,
  waitForStatus,
} from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const env = serverAndLlm();

const PATCH = [
  '*** Begin Patch',
  '*** Update File: greet.py',
  '@@ def greet(name):',
  '-    return "hi " + name',
  '+    return f"hello {name}"',
  '*** Add File: README.md',
  '+# Greeter',
  '*** End Patch',
].join('\n');
const SOURCE = 'def greet(name):\n    return "hi " + name\n';

describe('apply_patch in a conversation', () => {
  it('is offered by the server, edits files for the agent, and its observations read back over REST', async () => {
    const { server, llm } = env;
    const tools = (await (await api(server, '/api/tools/')).json()) as string[];
    expect(tools).toContain('apply_patch');
    const serverInfo = (await (await api(server, '/server_info')).json()) as { usable_tools: string[] };
    expect(serverInfo.usable_tools).toContain('apply_patch');

    const workingDir = tempDir('agentd-patch-ws-');
    writeFileSync(join(workingDir, 'greet.py'), SOURCE);
    const { id, key } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'apply_patch', arguments: { patch: PATCH, summary: 'friendlier greeting' } }] },
        { toolCalls: [{ name: 'apply_patch', arguments: { patch: PATCH } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Patched.' } }] },
      ],
      { tools: ['terminal', 'apply_patch', 'task_tracker'], workingDir },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const after = 'def greet(name):\n    return f"hello {name}"\n';
    expect(readFileSync(join(workingDir, 'greet.py'), 'utf8')).toBe(after);
    expect(readFileSync(join(workingDir, 'README.md'), 'utf8')).toBe('# Greeter\n');

    const events = await allEvents(server, id);
    const system = events.find((e) => e.kind === 'SystemPromptEvent') as Ev & { tools: Ev[] };
    expect(system.tools.find((t) => t.title === 'apply_patch')).toEqual({
      description:
        "Apply unified text patches to files in the workspace. Input must start with '*** Begin Patch' and end with '*** End Patch'.",
      action_type: 'ApplyPatchAction',
      observation_type: 'ApplyPatchObservation',
      annotations: {
        title: 'apply_patch',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
      kind: 'ApplyPatchTool',
      title: 'apply_patch',
    });
    const action = events.find((e) => e.kind === 'ActionEvent' && e.tool_name === 'apply_patch')!;
    expect(action.action).toEqual({ kind: 'ApplyPatchAction', patch: PATCH });

    const [done, failed] = events
      .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'apply_patch')
      .map((e) => e.observation as Ev);
    const message = 'Done! The patch changed 2 files:\n- updated greet.py\n- added README.md';
    expect(done).toEqual({
      kind: 'ApplyPatchObservation',
      message,
      fuzz: 0,
      commit: {
        changes: {
          'greet.py': { type: 'update', old_content: SOURCE, new_content: after, move_path: null },
          'README.md': { type: 'add', old_content: null, new_content: '# Greeter\n', move_path: null },
        },
      },
      content: [{ type: 'text', text: message, cache_prompt: false }],
      is_error: false,
    });
    // The same patch again: greet.py no longer has the removed line, and README.md exists.
    expect(failed).toMatchObject({ kind: 'ApplyPatchObservation', is_error: true, fuzz: 0, commit: null });
    expect(failed!.message).toMatch(/^Invalid Context in greet.py/);

    // What the LLM was offered, and what it read back.
    const requests = llm.requestsFor(key);
    const offered = (requests[0]!.body.tools as { function: { name: string; parameters: Ev } }[]).find(
      (t) => t.function.name === 'apply_patch',
    );
    expect(offered?.function.parameters).toMatchObject({
      properties: { patch: { type: 'string' } },
      required: ['patch'],
    });
    const toolMessages = (requests[2]!.body.messages as { role: string; content: unknown }[]).filter(
      (m) => m.role === 'tool',
    );
    expect(JSON.stringify(toolMessages[0]!.content)).toContain('Done! The patch changed 2 files');
    expect(JSON.stringify(toolMessages[1]!.content)).toContain('The patch was not applied');
  });
});
