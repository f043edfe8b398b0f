// `agentd run`, `conversations` and `events` on the embedded default, in the command's own process:
// the real binary, piped, against the scripted LLM.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { agentd, agentdToEnd, scriptedLLMEnv } from './command.js';

const llm = scriptedLLMEnv('cli-run');

/** A data folder, a working directory, and the LLM_* environment for a script of its own. */
function setup(steps: ScriptStep[]) {
  const dataDir = tempDir('agentd-cli-data-');
  const workDir = tempDir('agentd-cli-work-');
  return {
    dataDir,
    workDir,
    args: ['--data-dir', dataDir, '--dir', workDir],
    env: llm.env(steps),
  };
}

const terminal = (command: string): ScriptStep => ({
  toolCalls: [{ name: 'terminal', arguments: { command } }],
});
const finish = (message: string): ScriptStep => ({ toolCalls: [{ name: 'finish', arguments: { message } }] });
const idOf = (output: string) => /conversation ([0-9a-f-]{36})/.exec(output)![1]!;

describe('agentd run (in-process, piped)', () => {
  it('streams actions and observations as plain lines, the final message last, and exits 0', async () => {
    const t = setup([
      {
        text: 'Let me look.',
        toolCalls: [{ name: 'terminal', arguments: { command: 'echo hello; (exit 3)' } }],
      },
      finish('Said hello.'),
    ]);
    const { code, stdout, output } = await agentdToEnd(['run', 'say hello', ...t.args], t.env);
    expect(code, output).toBe(0);
    expect(stdout).not.toContain('\x1b'); // piped: no colours, no spinner
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^conversation [0-9a-f-]{36}$/);
    expect(lines.slice(1)).toEqual([
      '> say hello',
      'Let me look.',
      '$ echo hello; (exit 3)',
      '  hello',
      '  exit code 3',
      'Said hello.',
    ]);
  });

  it('exits 1 when the conversation ends in an error, naming it', async () => {
    const t = setup([{ error: { status: 401, message: 'scripted: bad key' } }]);
    const { code, stdout } = await agentdToEnd(['run', 'fail please', ...t.args], t.env);
    expect(code).toBe(1);
    expect(stdout).toContain('✗ the conversation ended: error');
    expect(stdout).toContain('bad key');
  });

  it('exits 2 for bad usage: no task, an unknown option, no LLM anywhere, a bad --resume', async () => {
    const dataDir = tempDir('agentd-cli-data-');
    const noTask = await agentdToEnd(['run', '--data-dir', dataDir]);
    expect(noTask.code).toBe(2);
    expect(noTask.output).toContain('agentd: agentd run needs a task');
    const unknown = await agentdToEnd(['run', 'x', '--colour', '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain("unknown option '--colour'");
    const noLlm = await agentdToEnd(['run', 'x', '--data-dir', dataDir, '--dir', tempDir()]);
    expect(noLlm.code).toBe(2);
    expect(noLlm.output).toContain('Set LLM_MODEL');
    const badId = await agentdToEnd(['run', '--resume', 'nope', '--data-dir', dataDir]);
    expect(badId.code).toBe(2);
    const unknownId = await agentdToEnd([
      'run',
      '--resume',
      '2004a6c3-e7da-4034-931e-cae2ba576a17',
      '--data-dir',
      dataDir,
    ]);
    expect(unknownId.code).toBe(1);
    expect(unknownId.output).toContain('Conversation not found');
  });

  it('--confirm asks for each pending action on the terminal: y runs it, n rejects it', async () => {
    const t = setup([terminal('touch accepted.txt'), terminal('touch rejected.txt'), finish('Done asking.')]);
    const run = agentd(['run', 'make two files', '--confirm', ...t.args], t.env);
    await run.waitFor('? Run this action? [y/n] ');
    expect(existsSync(join(t.workDir, 'accepted.txt'))).toBe(false);
    run.type('y\n');
    await run.waitFor('$ touch rejected.txt');
    await run.waitFor(/\$ touch rejected\.txt\n\? Run this action\? \[y\/n\] /);
    run.type('n\n');
    expect(await run.exited, run.output()).toBe(0);
    expect(existsSync(join(t.workDir, 'accepted.txt'))).toBe(true);
    expect(existsSync(join(t.workDir, 'rejected.txt'))).toBe(false);
    expect(run.stdout()).toContain('? Run this action? [y/n] y\n');
    expect(run.stdout()).toContain('? Run this action? [y/n] n\n✗ rejected: Rejected on the terminal.');
    expect(run.stdout().trimEnd().endsWith('Done asking.')).toBe(true);
  });

  it('--confirm with nobody to answer (stdin ended) exits 1, the action still waiting for --resume', async () => {
    const t = setup([terminal('touch later.txt'), finish('Confirmed later.')]);
    const run = agentd(['run', 'wait for me', '--confirm', ...t.args], t.env);
    await run.waitFor('? Run this action? [y/n] ');
    run.endInput();
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toContain('no answer (stdin ended)');
    const id = idOf(run.stdout());
    const listed = await agentdToEnd(['conversations', '--data-dir', t.dataDir]);
    expect(listed.stdout).toContain(`${id}  waiting_for_confirmation`);

    // Taken up again, the pending action is shown and asked about once more.
    const resumed = agentd(['run', '--resume', id, '--data-dir', t.dataDir], t.env);
    await resumed.waitFor('$ touch later.txt\n? Run this action? [y/n] ');
    resumed.type('y\n');
    expect(await resumed.exited, resumed.output()).toBe(0);
    expect(existsSync(join(t.workDir, 'later.txt'))).toBe(true);
    expect(resumed.stdout().trimEnd().endsWith('Confirmed later.')).toBe(true);
  });

  it('Ctrl-C pauses the conversation, prints its id and exits 130; --resume finishes it', async () => {
    const t = setup([terminal('sleep 30'), finish('Finished after the pause.')]);
    const run = agentd(['run', 'wait a while', ...t.args], t.env);
    await run.waitFor('$ sleep 30');
    // Meanwhile the folder is this process's: a server or a second in-process run there is refused.
    const serve = await agentdToEnd(['serve', '--port', '0', '--data-dir', t.dataDir]);
    expect(serve.code).toBe(2);
    expect(serve.output).toContain('is in use by an in-process agentd run');
    const second = await agentdToEnd(['run', 'me too', ...t.args], t.env);
    expect(second.code).toBe(2);
    expect(second.output).toContain('agentd run --url');
    run.signal('SIGINT');
    expect(await run.exited).toBe(130);
    const id = idOf(run.stdout());
    expect(run.stdout()).toContain(`paused conversation ${id}`);
    expect(run.stdout()).toContain(`resume with: agentd run --resume ${id} --data-dir ${t.dataDir}`);

    const listed = await agentdToEnd(['conversations', '--data-dir', t.dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${id}  paused +\\S+ \\S+  wait a while`));

    const resumed = await agentdToEnd(['run', '--resume', id, '--data-dir', t.dataDir], t.env);
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.stdout.trimEnd().endsWith('Finished after the pause.')).toBe(true);
    const after = await agentdToEnd(['conversations', '--data-dir', t.dataDir]);
    expect(after.stdout).toMatch(new RegExp(`${id}  finished`));
  });

  it('--goal works until the audit finds the task done; capped it exits 1, and --resume --goal goes on', async () => {
    const verdict = (score: number, complete: boolean, missing = ''): ScriptStep => ({
      text: JSON.stringify({ score, complete, missing }),
    });
    const t = setup([
      finish('First pass.'),
      verdict(0.5, false, 'the README is empty'),
      finish('README written.'),
      verdict(1, true),
    ]);
    const done = await agentdToEnd(['run', 'write a README', '--goal', ...t.args], t.env);
    expect(done.code, done.output).toBe(0);
    const lines = done.stdout.trimEnd().split('\n').slice(1);
    expect(lines).toEqual([
      '> write a README',
      'First pass.',
      '◎ goal audit 1/10, 50% done: missing the README is empty',
      '> The goal is NOT yet complete (audit iteration 1).',
      'README written.',
      '◎ goal audit 2/10, 100% done',
    ]);

    const capped = setup([
      finish('Tried.'),
      verdict(0.2, false, 'tests'),
      finish('Tried again.'),
      verdict(1, true),
    ]);
    const first = await agentdToEnd(
      ['run', 'add tests', '--goal', '--audits', '1', ...capped.args],
      capped.env,
    );
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('✗ the goal is not done after 1 audits');
    const id = idOf(first.stdout);
    expect(first.stdout).toContain(`resume with: agentd run --resume ${id} --goal`);
    // Capped is not resumable: a new goal in the same conversation is.
    const again = await agentdToEnd(
      ['run', 'add tests', '--resume', id, '--goal', '--data-dir', capped.dataDir],
      capped.env,
    );
    expect(again.code, again.output).toBe(0);
    expect(again.stdout).toContain('Tried again.');

    const usage = await agentdToEnd(['run', 'x', '--audits', '3', ...t.args], t.env);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain('--audits takes a number from 1 to 1000, with --goal');
  });

  it('agentd events prints the stored events, as lines or as JSON', async () => {
    const t = setup([terminal('echo listed'), finish('Listed.')]);
    const run = await agentdToEnd(['run', 'list it', ...t.args], t.env);
    const id = idOf(run.stdout);
    const lines = await agentdToEnd(['events', id, '--data-dir', t.dataDir]);
    expect(lines.code).toBe(0);
    // The agent's finish message too (it was left out: only `run` printed it, as the final response).
    expect(lines.stdout).toBe('> list it\n$ echo listed\n  listed\nListed.\n');
    const json = await agentdToEnd(['events', id, '--json', '--data-dir', t.dataDir]);
    const events = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; kind: string });
    expect(events[0]!.kind).toBe('SystemPromptEvent');
    expect(events.map((e) => e.kind)).toContain('ActionEvent');
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const missing = await agentdToEnd([
      'events',
      '2004a6c3-e7da-4034-931e-cae2ba576a17',
      '--data-dir',
      t.dataDir,
    ]);
    expect(missing.code).toBe(1);
  });
});
