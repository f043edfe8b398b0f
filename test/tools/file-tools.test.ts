import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_DEFINITION_VARIANTS } from '../../src/events/index.js';
import { defaultFinder } from '../../src/tools/files/finders.js';
import { createTools } from '../../src/tools/index.js';
import { allEvents, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';
import { type Obs, text, toolCaller, toolContext } from '../support/tools.js';

function setup(options = {}) {
  const workingDir = tempDir('agentd-files-');
  const tools = createTools(
    ['read_file', 'write_file', 'edit', 'list_directory', 'glob', 'grep', 'planning_file_editor'],
    options,
  );
  return { workingDir, call: toolCaller(tools, toolContext(workingDir)) };
}

describe('file tools', () => {
  it('writes, reads with line numbers and paging, and edits with an exact count', async () => {
    const { workingDir, call } = setup();
    const written = await call('write_file', { file_path: 'a.txt', content: 'alpha\nbeta\nbeta\ngamma' });
    expect(written).toMatchObject({
      kind: 'WriteFileObservation',
      is_new_file: true,
      is_error: false,
      file_path: join(workingDir, 'a.txt'),
    });
    const read = await call('read_file', { file_path: 'a.txt', offset: 1, limit: 2 });
    expect(text(read)).toContain('     2  beta\n     3  beta');
    expect(read).toMatchObject({ lines_shown: [2, 3], total_lines: 4, is_truncated: true });
    const mismatch = await call('edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' });
    expect(mismatch.is_error).toBe(true);
    expect(text(mismatch)).toBe(
      `Error: Expected 1 occurrence(s) but found 2 in ${join(workingDir, 'a.txt')}.`,
    );
    const edited = await call('edit', {
      file_path: 'a.txt',
      old_string: 'beta',
      new_string: 'BETA',
      expected_replacements: 2,
    });
    expect(edited).toMatchObject({ replacements_made: 2, is_error: false });
    expect(readFileSync(join(workingDir, 'a.txt'), 'utf8')).toBe('alpha\nBETA\nBETA\ngamma');
    const created = await call('edit', { file_path: 'new.txt', old_string: '', new_string: 'fresh' });
    expect(created).toMatchObject({ is_new_file: true });
    expect((await call('read_file', { file_path: 'missing.txt' })).is_error).toBe(true);
  });

  it('confines paths to the workspace unless configured otherwise', async () => {
    const { call } = setup();
    const outside = await call('read_file', { file_path: '/etc/hostname' });
    expect(outside.is_error).toBe(true);
    expect(text(outside)).toContain('outside the workspace');
    expect((await call('write_file', { file_path: '../escape.txt', content: 'x' })).is_error).toBe(true);
    const open = setup({ allowPathsOutsideWorkspace: true });
    expect((await open.call('read_file', { file_path: '/etc/hostname' })).is_error).toBe(false);
  });

  // .gitignore is ripgrep's: the plain walk (no `rg` on PATH) does not read it.
  it.skipIf(defaultFinder().name !== 'ripgrep')(
    'lists directories, finds files by glob (gitignore-aware) and by content',
    async () => {
      const { workingDir, call } = setup();
      mkdirSync(join(workingDir, 'src', 'deep'), { recursive: true });
      mkdirSync(join(workingDir, 'build'));
      writeFileSync(join(workingDir, '.gitignore'), 'build/\n');
      writeFileSync(join(workingDir, 'src', 'old.ts'), 'export const answer = 42;\n');
      writeFileSync(join(workingDir, 'src', 'deep', 'new.ts'), 'const question = "?";\n');
      writeFileSync(join(workingDir, 'build', 'out.ts'), 'export const answer = 42;\n');
      writeFileSync(join(workingDir, 'notes.md'), 'answer later\n');
      utimesSync(join(workingDir, 'src', 'old.ts'), new Date(2020, 1, 1), new Date(2020, 1, 1));
      // ripgrep honours .gitignore only inside a git repository
      mkdirSync(join(workingDir, '.git'));

      const listing = await call('list_directory', { recursive: true });
      expect((listing.entries as { path: string }[]).map((e) => e.path)).toContain(
        join(workingDir, 'src', 'deep'),
      );
      const glob = await call('glob', { pattern: '**/*.ts' });
      expect(glob.files).toEqual([
        join(workingDir, 'src', 'deep', 'new.ts'),
        join(workingDir, 'src', 'old.ts'),
      ]);
      expect(text(await call('glob', { pattern: '*.rs' }))).toContain('No files found');
      const grep = await call('grep', { pattern: 'answer\\s*=', include: '*.ts' });
      expect(grep.matches).toEqual([join(workingDir, 'src', 'old.ts')]);
      expect((await call('grep', { pattern: 'answer' })).matches).toHaveLength(2);
      const bad = await call('grep', { pattern: '(unclosed' });
      expect(bad.is_error).toBe(true);
      expect(text(bad)).toContain('Invalid regex pattern');
    },
  );

  it('lists to a chosen depth and leaves out ignored names', async () => {
    const { workingDir, call } = setup();
    mkdirSync(join(workingDir, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(join(workingDir, 'a', 'keep.txt'), '');
    writeFileSync(join(workingDir, 'a', 'drop.log'), '');
    const paths = async (args: Record<string, unknown>) =>
      ((await call('list_directory', args)).entries as { path: string }[]).map((e) => e.path);
    expect(await paths({})).toEqual([join(workingDir, 'a')]);
    expect(await paths({ recursive: true, depth: 3 })).toContain(join(workingDir, 'a', 'b', 'c'));
    expect(await paths({ recursive: true })).not.toContain(join(workingDir, 'a', 'b', 'c'));
    const filtered = await paths({ recursive: true, ignore: ['*.log', 'b'] });
    expect(filtered).toContain(join(workingDir, 'a', 'keep.txt'));
    expect(filtered).not.toContain(join(workingDir, 'a', 'drop.log'));
    expect(filtered).not.toContain(join(workingDir, 'a', 'b'));
  });

  it('lets the planning editor change only the plan file', async () => {
    const { workingDir, call } = setup();
    const plan = join(workingDir, '.agents_tmp', 'PLAN.md');
    expect(text(await call('planning_file_editor', { command: 'view', path: plan }))).toContain('# Plan');
    const edited = await call('planning_file_editor', {
      command: 'str_replace',
      path: plan,
      old_str: '## Goal\n',
      new_str: '## Goal\nShip it.\n',
    });
    expect(edited.is_error).toBe(false);
    expect(readFileSync(plan, 'utf8')).toContain('Ship it.');
    const refused = await call('planning_file_editor', {
      command: 'create',
      path: join(workingDir, 'other.md'),
      file_text: 'x',
    });
    expect(refused.is_error).toBe(true);
    expect(text(refused)).toContain("Operation 'create' is not allowed");
  });

  it('defines every tool with a ToolDefinition of the catalogue', () => {
    for (const tool of createTools([
      'read_file',
      'write_file',
      'edit',
      'list_directory',
      'glob',
      'grep',
      'planning_file_editor',
    ])) {
      expect(TOOL_DEFINITION_VARIANTS.map((v) => (v as { title?: string }).title)).toContain(
        tool.definition.kind,
      );
    }
  });
});

describe('file tools in a real conversation', () => {
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

  it('bounds what the LLM sees of a long tool result', async () => {
    const workingDir = tempDir('agentd-files-');
    writeFileSync(
      join(workingDir, 'big.txt'),
      Array.from({ length: 1000 }, (_, i) => `line ${i} ${'x'.repeat(90)}`).join('\n'),
    );
    const { id, key } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'read_file', arguments: { file_path: 'big.txt' } }] }, { text: 'read it' }],
      {
        tools: ['read_file'],
        workingDir,
      },
    );
    await waitForStatus(server, id, ['finished']);
    const messages = llm.requestsFor(key)[1]!.body.messages as { role: string; content: string }[];
    const tool = messages.find((m) => m.role === 'tool')!;
    expect(tool.content.length).toBeLessThanOrEqual(30_000);
    expect(tool.content).toContain('<response clipped>');
    expect(tool.content).toContain('line 999');
  });

  it('answers every file tool, and an invalid call, as the agent asked', async () => {
    const names = [
      'write_file',
      'edit',
      'read_file',
      'list_directory',
      'glob',
      'grep',
      'planning_file_editor',
    ];
    const call = (name: string, args: Record<string, unknown>) => ({
      toolCalls: [{ name, arguments: args }],
    });
    const { id } = await startConversation(
      server,
      llm,
      [
        call('write_file', { file_path: 'todo.txt', content: 'buy milk\n' }),
        call('edit', { file_path: 'todo.txt', old_string: 'milk', new_string: 'oat milk' }),
        call('read_file', { file_path: 'todo.txt' }),
        call('list_directory', {}),
        call('glob', { pattern: '*.txt' }),
        call('grep', { pattern: 'oat' }),
        call('planning_file_editor', { command: 'view', path: '.agents_tmp/PLAN.md' }),
        call('read_file', { offset: 3 }),
        call('finish', { message: 'found it' }),
      ],
      { tools: names },
    );
    await waitForStatus(server, id, ['finished']);
    const events = await allEvents(server, id);
    const observations = events.filter((e) => e.kind === 'ObservationEvent').map((e) => e.observation as Obs);
    expect(observations.map((o) => o.kind)).toEqual([
      'WriteFileObservation',
      'EditObservation',
      'ReadFileObservation',
      'ListDirectoryObservation',
      'GlobObservation',
      'GrepObservation',
      'PlanningFileEditorObservation',
      'FinishObservation',
    ]);
    expect(observations.slice(0, -1).every((o) => !o.is_error)).toBe(true);
    expect(text(observations[2]!)).toContain('buy oat milk');
    expect((observations[5]!.matches as string[])[0]).toMatch(/todo\.txt$/);
    const error = events.find((e) => e.kind === 'AgentErrorEvent')!;
    expect(error.error).toMatch(/Error validating tool 'read_file'.*file_path/);
  });
});
