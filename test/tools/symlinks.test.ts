// Every file tool against symbolic links: links that leave the workspace are refused and nothing
// outside is read or changed; links that stay inside work as the files and folders they point to.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkedWorkspace, type Obs, SECRET, snapshot, text, toolsIn } from './symlink-fixture.js';

/** The call was refused with a message the agent can act on, and showed nothing from outside. */
function refused(o: Obs): void {
  expect(o.is_error, text(o)).toBe(true);
  expect(text(o)).toMatch(/outside the workspace|symbolic link/);
  expect(JSON.stringify(o)).not.toContain('SECRET');
}

describe('links that leave the workspace', () => {
  it('are not read: read_file, file_editor view and planning_file_editor view', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const call = toolsIn(ws);
    refused(await call('read_file', { file_path: 'pw' }));
    refused(await call('read_file', { file_path: join(ws, 'outdir', 'secret.txt') }));
    refused(await call('read_file', { file_path: 'outdir/deep/deeper.txt' }));
    refused(await call('file_editor', { command: 'view', path: join(ws, 'pw') }));
    refused(await call('file_editor', { command: 'view', path: join(ws, 'outdir') }));
    refused(await call('file_editor', { command: 'view', path: join(ws, 'outdir', 'secret.txt') }));
    refused(await call('planning_file_editor', { command: 'view', path: join(ws, 'pw') }));
    const message = text(await call('read_file', { file_path: 'pw' }));
    expect(message).toContain(`Path pw leads through a symbolic link to ${join(outside, 'secret.txt')}`);
    expect(snapshot(outside)).toEqual(before);
  });

  it('are not listed into: list_directory and file_editor view of the workspace', async () => {
    const { ws, outside } = linkedWorkspace();
    const call = toolsIn(ws);
    refused(await call('list_directory', { dir_path: 'outdir' }));
    const listing = await call('list_directory', { recursive: true, depth: 5 });
    expect(listing.is_error).toBe(false);
    const entries = listing.entries as { path: string; is_directory: boolean; size: number }[];
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([join(ws, 'pw'), join(ws, 'outdir'), join(ws, 'sub', 'a.txt')]),
    );
    expect(paths.filter((p) => p.startsWith(join(ws, 'outdir') + '/'))).toEqual([]);
    // The leaving links are shown as the links they are: no size or type of what lies outside.
    const outdir = entries.find((e) => e.path === join(ws, 'outdir'))!;
    expect(outdir.is_directory).toBe(false);
    expect(entries.find((e) => e.path === join(ws, 'pw'))!.size).not.toBe(SECRET.length);
    expect(text(listing)).not.toContain('secret.txt');
    expect(text(listing)).not.toContain(outside);

    const view = await call('file_editor', { command: 'view', path: ws });
    expect(view.is_error).toBe(false);
    expect(text(view)).toContain(join(ws, 'outdir'));
    expect(text(view)).not.toContain('secret.txt');
    expect(text(view)).not.toContain('deeper');
  });

  it('are not written through: write_file, edit, file_editor create/str_replace/insert', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const call = toolsIn(ws);
    refused(await call('write_file', { file_path: 'pw', content: 'owned' }));
    refused(await call('write_file', { file_path: 'outdir/new.txt', content: 'owned' }));
    refused(await call('write_file', { file_path: 'outdir/made/new.txt', content: 'owned' }));
    refused(await call('write_file', { file_path: 'gone', content: 'owned' }));
    refused(await call('edit', { file_path: 'pw', old_string: 'SECRET', new_string: 'owned' }));
    refused(await call('edit', { file_path: 'outdir/new.txt', old_string: '', new_string: 'owned' }));
    refused(await call('edit', { file_path: 'gone', old_string: '', new_string: 'owned' }));
    const editor = (args: Record<string, unknown>) => call('file_editor', args);
    refused(await editor({ command: 'create', path: join(ws, 'outdir', 'new.txt'), file_text: 'owned' }));
    refused(await editor({ command: 'create', path: join(ws, 'gone'), file_text: 'owned' }));
    refused(await editor({ command: 'str_replace', path: join(ws, 'pw'), old_str: 'SECRET', new_str: 'x' }));
    refused(await editor({ command: 'insert', path: join(ws, 'pw'), insert_line: 0, new_str: 'owned' }));
    refused(
      await editor({
        command: 'insert',
        path: join(ws, 'outdir', 'secret.txt'),
        insert_line: 0,
        new_str: 'x',
      }),
    );
    refused(await editor({ command: 'undo_edit', path: join(ws, 'pw') }));
    expect(snapshot(outside)).toEqual(before);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(lstatSync(join(ws, 'pw')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws, 'gone')).isSymbolicLink()).toBe(true);
  });

  it('cannot become the plan file of planning_file_editor', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const call = toolsIn(ws);
    mkdirSync(join(ws, '.agents_tmp'));
    symlinkSync(join(outside, 'secret.txt'), join(ws, '.agents_tmp', 'PLAN.md'));
    const plan = join(ws, '.agents_tmp', 'PLAN.md');
    const edit = await call('planning_file_editor', {
      command: 'str_replace',
      path: plan,
      old_str: 'SECRET',
      new_str: 'owned',
    });
    expect(edit.is_error).toBe(true);
    expect(text(edit)).toContain('symbolic link');
    expect(snapshot(outside)).toEqual(before);

    // A folder link: the template is not created outside either.
    const other = linkedWorkspace();
    symlinkSync(other.outside, join(other.ws, '.agents_tmp'));
    const insert = await toolsIn(other.ws)('planning_file_editor', {
      command: 'insert',
      path: join(other.ws, '.agents_tmp', 'PLAN.md'),
      insert_line: 0,
      new_str: 'owned',
    });
    expect(insert.is_error).toBe(true);
    expect(snapshot(other.outside)).toEqual(other.before);
  });

  it('end in a clear error for a loop', async () => {
    const { ws } = linkedWorkspace();
    const call = toolsIn(ws);
    const loop = await call('read_file', { file_path: 'loop' });
    expect(loop.is_error).toBe(true);
    expect(text(loop)).toContain('Too many levels of symbolic links');
    expect((await call('write_file', { file_path: 'loop', content: 'x' })).is_error).toBe(true);
  });
});

describe('links that stay inside the workspace', () => {
  it('read, view and list as what they point to', async () => {
    const { ws } = linkedWorkspace();
    const call = toolsIn(ws);
    const read = await call('read_file', { file_path: 'infile' });
    expect(read).toMatchObject({ is_error: false, file_path: join(ws, 'infile') });
    expect(text(read)).toContain('inner line');
    expect(text(await call('read_file', { file_path: 'inabs' }))).toContain('inner line');
    expect(text(await call('read_file', { file_path: 'indir/a.txt' }))).toContain('alpha in sub');
    expect(text(await call('file_editor', { command: 'view', path: join(ws, 'infile') }))).toContain(
      'inner line',
    );
    const folder = await call('file_editor', { command: 'view', path: join(ws, 'indir') });
    expect(text(folder)).toContain(join(ws, 'indir', 'a.txt'));
    const listed = await call('list_directory', { dir_path: 'indir' });
    expect((listed.entries as { path: string }[]).map((e) => e.path)).toEqual([join(ws, 'indir', 'a.txt')]);
    const top = (await call('list_directory', {})).entries as { path: string; is_directory: boolean }[];
    expect(top.find((e) => e.path === join(ws, 'indir'))!.is_directory).toBe(true);
    const view = text(await call('file_editor', { command: 'view', path: ws }));
    expect(view).toContain(`${join(ws, 'indir')}/`);
    // Walks list a folder link but do not go into it (as find and ripgrep): no loops, no double listing.
    expect(view).not.toContain(join(ws, 'indir', 'a.txt'));
    const all = (await call('list_directory', { recursive: true })).entries as { path: string }[];
    expect(all.map((e) => e.path)).toContain(join(ws, 'sub', 'a.txt'));
    expect(all.map((e) => e.path)).not.toContain(join(ws, 'indir', 'a.txt'));
  });

  it('write, edit, replace, insert and undo their target, and stay links', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const call = toolsIn(ws);
    const inner = join(ws, 'inner.txt');
    expect((await call('write_file', { file_path: 'infile', content: 'one\n' })).is_error).toBe(false);
    expect(readFileSync(inner, 'utf8')).toBe('one\n');
    expect((await call('edit', { file_path: 'inabs', old_string: 'one', new_string: 'two' })).is_error).toBe(
      false,
    );
    expect(readFileSync(inner, 'utf8')).toBe('two\n');
    const editor = (args: Record<string, unknown>) => call('file_editor', args);
    const link = join(ws, 'infile');
    expect(
      (await editor({ command: 'str_replace', path: link, old_str: 'two', new_str: 'three' })).is_error,
    ).toBe(false);
    expect((await editor({ command: 'insert', path: link, insert_line: 0, new_str: 'top' })).is_error).toBe(
      false,
    );
    expect(readFileSync(inner, 'utf8')).toBe('top\nthree\n');
    // The undo history follows the file, whichever name it was edited by.
    expect((await editor({ command: 'undo_edit', path: inner })).is_error).toBe(false);
    expect(readFileSync(inner, 'utf8')).toBe('three\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws, 'inabs')).isSymbolicLink()).toBe(true);

    // New files through a folder link and through a dangling link land at the link's target.
    expect(
      (await editor({ command: 'create', path: join(ws, 'indir', 'b.txt'), file_text: 'b' })).is_error,
    ).toBe(false);
    expect(readFileSync(join(ws, 'sub', 'b.txt'), 'utf8')).toBe('b');
    expect((await call('write_file', { file_path: 'indir/new/c.txt', content: 'c' })).is_error).toBe(false);
    expect(readFileSync(join(ws, 'sub', 'new', 'c.txt'), 'utf8')).toBe('c');
    expect((await call('edit', { file_path: 'later', old_string: '', new_string: 'later' })).is_error).toBe(
      false,
    );
    expect(readFileSync(join(ws, 'sub', 'later.txt'), 'utf8')).toBe('later');
    expect(lstatSync(join(ws, 'later')).isSymbolicLink()).toBe(true);
    expect(snapshot(outside)).toEqual(before);
  });

  it('keep a file’s permissions across an edit', async () => {
    const { ws } = linkedWorkspace();
    const call = toolsIn(ws);
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o750);
    await call('edit', { file_path: 'run.sh', old_string: 'hi', new_string: 'ho' });
    expect(statSync(join(ws, 'run.sh')).mode & 0o777).toBe(0o750);
  });
});

describe('a workspace reached through a link', () => {
  it('works by either name and still refuses what leaves it', async () => {
    const { base, ws, outside, before } = linkedWorkspace();
    const alias = join(base, 'alias');
    symlinkSync(ws, alias);
    const call = toolsIn(alias);
    const read = await call('read_file', { file_path: 'inner.txt' });
    expect(read).toMatchObject({ is_error: false, file_path: join(alias, 'inner.txt') });
    expect((await call('read_file', { file_path: join(ws, 'inner.txt') })).is_error).toBe(false);
    expect((await call('write_file', { file_path: 'made.txt', content: 'm' })).is_error).toBe(false);
    expect(readFileSync(join(ws, 'made.txt'), 'utf8')).toBe('m');
    const glob = await call('glob', { pattern: '*.txt' });
    expect(glob.files).toContain(join(alias, 'made.txt'));
    refused(await call('read_file', { file_path: 'pw' }));
    refused(await call('write_file', { file_path: 'outdir/x.txt', content: 'x' }));
    refused(await call('read_file', { file_path: join(outside, 'secret.txt') }));
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('allowPathsOutsideWorkspace', () => {
  it('follows links out, and a write goes to the target while the link stays', async () => {
    const { ws, outside } = linkedWorkspace();
    const call = toolsIn(ws, { allowPathsOutsideWorkspace: true });
    expect(text(await call('read_file', { file_path: 'pw' }))).toContain('SECRET');
    expect((await call('write_file', { file_path: 'pw', content: 'changed' })).is_error).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('changed');
    expect(lstatSync(join(ws, 'pw')).isSymbolicLink()).toBe(true);
    const listed = await call('list_directory', { dir_path: 'outdir' });
    expect((listed.entries as { name: string }[]).map((e) => e.name)).toContain('secret.txt');
  });
});
