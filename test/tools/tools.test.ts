import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createTools,
  fileEditorTool,
  registeredToolNames,
  type Tool,
  type ToolContext,
  taskTrackerTool,
  terminalTool,
  truncate,
} from '../../src/tools/index.js';
import { KEEP_CHARS } from '../../src/tools/terminal/session.js';
import { tempDir } from '../support/server.js';
import { toolContext } from '../support/tools.js';

const context = (secrets: Record<string, string> = {}) => toolContext(tempDir('agentd-tools-'), secrets);

type Obs = {
  content: { text: string }[];
  is_error: boolean;
  exit_code?: number;
  metadata?: { working_dir: string | null };
} & Record<string, unknown>;
const textOf = (o: Obs) => o.content.map((c) => c.text).join('');

describe('terminal', () => {
  let tool: Tool;
  let ctx: ToolContext;
  const run = (command: string, extra: Record<string, unknown> = {}) =>
    tool.execute(
      { kind: 'TerminalAction', command, is_input: false, reset: false, ...extra },
      ctx,
    ) as Promise<Obs>;

  beforeEach(() => {
    tool = terminalTool({ noChangeTimeoutSeconds: 1 });
    ctx = context({ API_TOKEN: 'tok-very-secret-123' });
  });
  afterEach(() => tool.close?.());

  it('keeps cwd and environment between calls and reports exit codes', async () => {
    expect(textOf(await run('pwd'))).toBe(ctx.workingDir);
    await run('mkdir sub && cd sub && export GREETING=hi');
    const out = await run('echo $GREETING; pwd; false');
    expect(textOf(out)).toBe(`hi\n${join(ctx.workingDir, 'sub')}`);
    expect(out.exit_code).toBe(1);
    expect(out.metadata?.working_dir).toBe(join(ctx.workingDir, 'sub'));
    const llmText = (tool.toLlmContent!(out)[0] as { text: string }).text;
    expect(llmText).toContain('[Command finished with exit code 1]');
    expect(llmText).toContain(`[Current working directory: ${join(ctx.workingDir, 'sub')}]`);
  });

  it('returns early on silence, keeps the command running, and C-c recovers the shell', async () => {
    const quiet = await run('echo before; sleep 30');
    expect(quiet.exit_code).toBe(-1);
    expect(textOf(quiet)).toContain('before');
    expect((tool.toLlmContent!(quiet)[0] as { text: string }).text).toContain(
      'no new output after 1 seconds',
    );
    const blocked = await run('echo other');
    expect(blocked.is_error).toBe(true);
    expect(textOf(blocked)).toContain('is NOT executed');
    const interrupted = await run('C-c', { is_input: true });
    expect(interrupted.exit_code).toBe(130);
    expect(textOf(await run('echo alive'))).toBe('alive');
  });

  it('honours a hard timeout', async () => {
    const out = await run('sleep 5', { timeout: 0.3 });
    expect(out.exit_code).toBe(-1);
    expect((tool.toLlmContent!(out)[0] as { text: string }).text).toContain('timed out after 0.3 seconds');
    await run('C-c', { is_input: true });
  });

  it('sends input to a running program and an empty command waits for more', async () => {
    const waiting = await run('read name; echo "hello $name"');
    expect(waiting.exit_code).toBe(-1);
    const answered = await run('agentd', { is_input: true });
    expect(textOf(answered)).toBe('hello agentd');
    expect(answered.exit_code).toBe(0);
    expect((await run('')).is_error).toBe(true); // nothing running any more
  });

  it('truncates long output keeping head and tail, saving the whole', async () => {
    const out = await run('seq 1 20000');
    const text = textOf(out);
    expect(text.length).toBeLessThanOrEqual(30_000);
    expect(text.startsWith('1\n2\n3\n')).toBe(true);
    expect(text.endsWith('19999\n20000')).toBe(true);
    expect(text).toContain('<response clipped>');
    const saved = /saved at (\S+\.txt)/.exec(text)?.[1];
    expect(readFileSync(saved!, 'utf8')).toContain('\n10000\n');
    expect(truncate('short', 100)).toBe('short');
  });

  it('ends a command at its prompt, not at output that only looks like its end, after megabytes too', async () => {
    const marker = await run("printf 'x###PS1END###y\\n'; echo after");
    expect(textOf(marker)).toBe('x###PS1END###y\nafter');
    expect(marker.exit_code).toBe(0);
    const big = await run('head -c 4000000 /dev/zero | tr "\\0" a; echo; echo end');
    expect(big.exit_code).toBe(0);
    expect(textOf(big).endsWith('\nend')).toBe(true);
  });

  it('keeps the first and last MiB of a huge output, says how much it dropped, and goes on', async () => {
    // ~7 MB: kept whole, this grew the server's memory without bound (past ~512 MB it crashed).
    const out = await run('seq 1 1000000; echo end');
    expect(out.exit_code).toBe(0);
    const text = textOf(out);
    expect(text.startsWith('1\n2\n3\n')).toBe(true);
    expect(text.endsWith('999999\n1000000\nend')).toBe(true);
    const saved = readFileSync(/saved at (\S+\.txt)/.exec(text)![1]!, 'utf8');
    const note =
      /\n\[(\d+) characters of this output were not kept: only its first and last 1 MiB are\]\n/.exec(saved);
    expect(Number(note?.[1])).toBeGreaterThan(4_000_000);
    expect(saved.length).toBeLessThan(2 * KEEP_CHARS + 200);
    // What is kept joins up with what was dropped: whole lines from 1 on, and whole lines up to the end.
    const [head, tail] = saved.split(note![0]);
    expect(
      head!
        .split('\n')
        .slice(0, -1)
        .every((line, i) => line === String(i + 1)),
    ).toBe(true);
    const tailLines = tail!.split('\n').slice(1);
    expect(tailLines.slice(-2)).toEqual(['1000000', 'end']);
    expect(
      tailLines.slice(0, -1).every((line, i, all) => i === 0 || Number(line) === Number(all[i - 1]) + 1),
    ).toBe(true);
    const next = await run('echo next');
    expect(textOf(next)).toBe('next');
  });

  it('hides secret values and exposes them to commands', async () => {
    const out = await run('echo "token=$API_TOKEN"');
    expect(textOf(out)).toBe('token=<secret-hidden>');
  });

  it('resets into a fresh shell, and close ends every process it started', async () => {
    await run('export KEPT=1; sleep 300 &');
    const reset = await run('', { reset: true });
    expect(textOf(reset)).toContain('Terminal session has been reset');
    expect(textOf(await run('echo "[$KEPT]"'))).toBe('[]');
    const marker = `agentd-leak-check-${Date.now()}`;
    await run(`(exec -a ${marker} sleep 300) &`);
    const running = () => {
      try {
        return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim();
      } catch {
        return ''; // pgrep exits 1 when nothing matches
      }
    };
    // The background job is forked after the prompt returns: it may take a moment to exist.
    await vi.waitFor(() => expect(running()).not.toBe(''), { timeout: 10_000, interval: 50 });
    await tool.close!();
    await vi.waitFor(() => expect(running()).toBe(''), { timeout: 10_000, interval: 50 });
  });
});

describe('file_editor', () => {
  const tool = fileEditorTool();
  const ctx = context();
  const edit = (action: Record<string, unknown>) =>
    tool.execute({ kind: 'FileEditorAction', ...action } as never, ctx) as Promise<Obs>;
  const file = join(ctx.workingDir, 'a.txt');

  it('creates, views (cat -n, ranges) and refuses to overwrite', async () => {
    expect(textOf(await edit({ command: 'create', path: file, file_text: 'one\ntwo\nthree' }))).toBe(
      `File created successfully at: ${file}`,
    );
    expect(textOf(await edit({ command: 'view', path: file }))).toBe(
      `Here's the result of running \`cat -n\` on ${file}:\n     1\tone\n     2\ttwo\n     3\tthree\n`,
    );
    expect(textOf(await edit({ command: 'view', path: file, view_range: [2, -1] }))).toContain(
      '     2\ttwo\n     3\tthree',
    );
    expect(textOf(await edit({ command: 'view', path: file, view_range: [2, 9] }))).toContain(
      'We only show up to 3',
    );
    const again = await edit({ command: 'create', path: file, file_text: 'x' });
    expect(again.is_error).toBe(true);
    expect(textOf(again)).toContain('File already exists');
  });

  it('replaces a unique match, refuses zero or many, and undoes', async () => {
    const ok = await edit({ command: 'str_replace', path: file, old_str: 'two', new_str: 'TWO' });
    expect(ok.is_error).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('one\nTWO\nthree');
    const none = await edit({ command: 'str_replace', path: file, old_str: 'four', new_str: 'x' });
    expect(textOf(none)).toContain('did not appear verbatim');
    writeFileSync(file, 'dup\ndup\n');
    const many = await edit({ command: 'str_replace', path: file, old_str: 'dup', new_str: 'x' });
    expect(textOf(many)).toContain('Multiple occurrences of old_str `dup` in lines [1,2]');
    await edit({ command: 'str_replace', path: file, old_str: 'dup\ndup', new_str: 'single' });
    expect(readFileSync(file, 'utf8')).toBe('single\n');
    await edit({ command: 'undo_edit', path: file });
    expect(readFileSync(file, 'utf8')).toBe('dup\ndup\n');
  });

  it('stays inside the workspace unless allowed to leave it', async () => {
    const outside = await edit({ command: 'view', path: '/etc/hostname' });
    expect(outside.is_error).toBe(true);
    expect(textOf(outside)).toContain('outside the workspace');
    const open = fileEditorTool({ allowPathsOutsideWorkspace: true });
    const seen = (await open.execute(
      { kind: 'FileEditorAction', command: 'view', path: '/etc/hostname' } as never,
      ctx,
    )) as Obs;
    expect(seen.is_error).toBe(false);
  });

  it('inserts after a line with bounds checked', async () => {
    writeFileSync(file, 'a\nb');
    await edit({ command: 'insert', path: file, insert_line: 1, new_str: 'between' });
    expect(readFileSync(file, 'utf8')).toBe('a\nbetween\nb');
    const out = await edit({ command: 'insert', path: file, insert_line: 9, new_str: 'x' });
    expect(textOf(out)).toContain('Invalid `insert_line` parameter: 9');
  });

  it('lists a directory two levels deep and rejects relative paths, missing parameters and binaries', async () => {
    mkdirSync(join(ctx.workingDir, 'd1', 'd2', 'd3'), { recursive: true });
    writeFileSync(join(ctx.workingDir, '.hidden'), '');
    const listing = textOf(await edit({ command: 'view', path: ctx.workingDir }));
    expect(listing).toContain(`${join(ctx.workingDir, 'd1', 'd2')}/`);
    expect(listing).not.toContain('d3');
    expect(listing).toContain('hidden files/directories');
    expect(textOf(await edit({ command: 'view', path: 'a.txt' }))).toContain(`Maybe you meant ${file}?`);
    expect(textOf(await edit({ command: 'create', path: join(ctx.workingDir, 'b.txt') }))).toBe(
      'Parameter `file_text` is required for command: create.',
    );
    writeFileSync(join(ctx.workingDir, 'bin'), Buffer.from([0, 1, 2, 3]));
    expect(textOf(await edit({ command: 'view', path: join(ctx.workingDir, 'bin') }))).toContain(
      'binary file',
    );
    expect(textOf(await edit({ command: 'undo_edit', path: join(ctx.workingDir, 'never.txt') }))).toContain(
      'No edit history found',
    );
  });
});

describe('task_tracker and the registry', () => {
  it('plans and views a task list kept in the conversation folder', async () => {
    const tool = taskTrackerTool();
    const ctx = context();
    const empty = (await tool.execute(
      { kind: 'TaskTrackerAction', command: 'view', task_list: [] },
      ctx,
    )) as Obs;
    expect(textOf(empty)).toContain('No task list found');
    await tool.execute(
      {
        kind: 'TaskTrackerAction',
        command: 'plan',
        task_list: [{ title: 'write', notes: 'n', status: 'done' }, { title: 'test' }],
      },
      ctx,
    );
    const view = (await tool.execute(
      { kind: 'TaskTrackerAction', command: 'view', task_list: [] },
      ctx,
    )) as Obs;
    expect(textOf(view)).toBe('# Task List\n\n1. ✅ write\n   n\n2. ⏳ test');
    expect(JSON.parse(readFileSync(join(ctx.persistenceDir, 'TASKS.json'), 'utf8'))).toHaveLength(2);
  });

  it('names its tools and builds fresh instances', () => {
    expect(registeredToolNames()).toEqual(
      expect.arrayContaining(['terminal', 'file_editor', 'task_tracker', 'finish', 'think']),
    );
    expect(createTools(['terminal', 'finish', 'terminal']).map((t) => t.name)).toEqual([
      'terminal',
      'finish',
    ]);
    expect(() => createTools(['nope'])).toThrow(/Unknown tool/);
    // The task tool runs sub-agents through its conversation; outside one there is none to make.
    expect(() => createTools(['task_tool_set'])).toThrow(/runs only in a conversation/);
    const noSubAgents = {
      types: [],
      run: () => Promise.reject(new Error('no sub-agents in this test')),
    };
    const all = createTools(registeredToolNames(), {}, undefined, noSubAgents);
    // Its two registry names (OpenHands' tool set and its tool) make one tool, `task`.
    expect(all.filter((t) => t.name === 'task')).toHaveLength(1);
    for (const t of all) {
      expect(t.definition.title).toBe(t.name);
      expect(t.definition.action_type).toBe(t.actionKind);
    }
  });
});
