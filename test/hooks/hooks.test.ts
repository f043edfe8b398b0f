// Hooks through real conversations: real hook scripts (sh), real terminal, real files; only the LLM
// is scripted.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  startConversation,
  waitForEvent,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

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

function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const textOf = (requestBody: Record<string, unknown>) => JSON.stringify(requestBody.messages);

describe('pre-tool-use hooks', () => {
  it('a hook script blocks rm -rf: UserRejectObservation (source hook) with its reason, nothing deleted', async () => {
    const hooksDir = tempDir('agentd-hooks-');
    const guard = script(
      hooksDir,
      'block-rm.sh',
      `input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed in this workspace" >&2; exit 2 ;;
esac
exit 0`,
    );
    const workingDir = tempDir('agentd-ws-');
    writeFileSync(join(workingDir, 'precious.txt'), 'keep me\n');
    const { id, key } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${workingDir}/precious.txt` } }] },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo still-here' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Done.' } }] },
      ],
      {
        workingDir,
        extra: { hook_config: { pre_tool_use: [{ matcher: 'terminal', hooks: [{ command: guard }] }] } },
      },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    expect(readFileSync(join(workingDir, 'precious.txt'), 'utf8')).toBe('keep me\n');

    const events = await allEvents(server, id);
    const actions = events.filter((e) => e.kind === 'ActionEvent');
    const reject = events.find((e) => e.kind === 'UserRejectObservation') as Ev;
    expect(reject).toMatchObject({
      action_id: actions[0]!.id,
      tool_name: 'terminal',
      tool_call_id: actions[0]!.tool_call_id,
      rejection_source: 'hook',
      rejection_reason: 'rm -rf is not allowed in this workspace',
    });
    const hookRuns = events.filter((e) => e.kind === 'HookExecutionEvent');
    // terminal twice (blocked, then allowed); the matcher leaves finish alone.
    expect(hookRuns.map((e) => [e.hook_event_type, e.blocked, e.exit_code])).toEqual([
      ['PreToolUse', true, 2],
      ['PreToolUse', false, 0],
    ]);
    expect(hookRuns[0]).toMatchObject({ source: 'hook', action_id: actions[0]!.id, tool_name: 'terminal' });
    // The second command ran.
    const observation = events.find((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal');
    expect(JSON.stringify(observation)).toContain('still-here');
    // The LLM was told why.
    const second = llm.requestsFor(key)[1]!;
    expect(textOf(second.body)).toContain('Action rejected: rm -rf is not allowed in this workspace');
    // The conversation shows its hooks.
    const info = (await (await api(server, `/api/conversations/${id}`)).json()) as { hook_config: unknown };
    expect(info.hook_config).toMatchObject({ pre_tool_use: [{ matcher: 'terminal' }], stop: [] });
  });

  it('a JSON decision on stdout denies with its reason; the hook sees the action as JSON on stdin', async () => {
    const hooksDir = tempDir('agentd-hooks-');
    const seen = join(hooksDir, 'seen.json');
    const guard = script(
      hooksDir,
      'deny.sh',
      `cat > ${seen}
echo '{"decision": "deny", "reason": "writes need review"}'`,
    );
    const workingDir = tempDir('agentd-ws-');
    const { id } = await startConversation(
      server,
      llm,
      [
        {
          toolCalls: [
            {
              name: 'file_editor',
              arguments: { command: 'create', path: join(workingDir, 'a.txt'), file_text: 'x' },
            },
          ],
        },
        { text: 'Understood.' },
      ],
      {
        workingDir,
        extra: {
          hook_config: { hooks: { PreToolUse: [{ matcher: 'file_.*', hooks: [{ command: guard }] }] } },
        },
      },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    expect(existsSync(join(workingDir, 'a.txt'))).toBe(false);
    const reject = (await allEvents(server, id)).find((e) => e.kind === 'UserRejectObservation');
    expect(reject).toMatchObject({ rejection_source: 'hook', rejection_reason: 'writes need review' });
    const input = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({
      event_type: 'PreToolUse',
      tool_name: 'file_editor',
      tool_input: { kind: 'FileEditorAction', command: 'create', path: join(workingDir, 'a.txt') },
      session_id: id,
      working_dir: workingDir,
    });
  });

  it('rejects a malformed hook_config with 422', async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { llm: { model: 'openai/x', api_key: 'k' } },
        workspace: { working_dir: tempDir() },
        hook_config: { before_everything: [] },
      }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]!.loc.slice(0, 2)).toEqual(['body', 'hook_config']);
    const both = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { llm: { model: 'openai/x', api_key: 'k' } },
        workspace: { working_dir: tempDir() },
        hook_config: { PreToolUse: [], pre_tool_use: [] },
      }),
    });
    expect(both.status).toBe(422);
  });
});

describe('post-tool-use and stop hooks', () => {
  it('post-tool-use hooks see the result; a stop hook sends the agent back until its condition holds', async () => {
    const hooksDir = tempDir('agentd-hooks-');
    const log = join(hooksDir, 'tools.log');
    const logger = script(hooksDir, 'log.sh', `cat >> ${log}; echo >> ${log}`);
    const workingDir = tempDir('agentd-ws-');
    const requireSummary = script(
      hooksDir,
      'require-summary.sh',
      `if [ -f "$OPENHANDS_PROJECT_DIR/summary.txt" ]; then exit 0; fi
echo '{"decision": "deny", "additionalContext": "Write summary.txt before you stop."}'`,
    );
    const { id, key } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo first-run' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Done early.' } }] },
        {
          toolCalls: [
            {
              name: 'file_editor',
              arguments: { command: 'create', path: join(workingDir, 'summary.txt'), file_text: 'ok\n' },
            },
          ],
        },
        { text: 'Summary written; done.' },
      ],
      {
        workingDir,
        extra: {
          hook_config: {
            post_tool_use: [{ matcher: 'terminal', hooks: [{ command: logger }] }],
            stop: [{ hooks: [{ command: requireSummary }] }],
          },
        },
      },
    );
    // `finished` comes before the stop hooks run (as in OpenHands); wait for the approving one.
    await waitForEvent(server, id, (e) => e.hook_event_type === 'Stop' && e.blocked === false);
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const logged = JSON.parse(readFileSync(log, 'utf8').trim()) as Record<string, unknown>;
    expect(logged).toMatchObject({
      event_type: 'PostToolUse',
      tool_name: 'terminal',
      tool_input: { command: 'echo first-run' },
      tool_response: { kind: 'TerminalObservation', exit_code: 0 },
    });

    const events = await allEvents(server, id);
    const feedback = events.find((e) => e.kind === 'MessageEvent' && e.source === 'environment') as Ev & {
      llm_message: { content: { text: string }[] };
    };
    expect(feedback.llm_message.content[0]!.text).toBe(
      '[Stop hook feedback] Write summary.txt before you stop.',
    );
    const stops = events.filter((e) => e.kind === 'HookExecutionEvent' && e.hook_event_type === 'Stop');
    expect(stops.map((e) => e.blocked)).toEqual([true, false]);
    // After the refusal the status went back to running, and the LLM saw the feedback.
    const statuses = events
      .filter((e) => e.kind === 'ConversationStateUpdateEvent' && e.key === 'execution_status')
      .map((e) => e.value);
    expect(statuses).toEqual(['running', 'finished', 'running', 'finished']);
    expect(textOf(llm.requestsFor(key)[2]!.body)).toContain('Write summary.txt before you stop.');
  });
});
