// file_editor on big inputs: what it answers stays bounded however large the file, folder or
// history behind it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileEditorTool } from '../../src/tools/index.js';
import { tempDir } from '../support/server.js';
import { type Obs, text, toolContext } from '../support/tools.js';

function editor() {
  const ctx = toolContext(tempDir('agentd-editor-limits-'));
  const tool = fileEditorTool();
  const edit = (action: Record<string, unknown>) =>
    tool.execute({ kind: 'FileEditorAction', ...action } as never, ctx) as Promise<Obs>;
  return { dir: ctx.workingDir, edit };
}

describe('file_editor limits', () => {
  it('lists the first 50 lines of a non-unique old_str and says how many more', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'many.txt');
    writeFileSync(file, 'x = 1\nneedle here\n'.repeat(30_000));
    const out = await edit({ command: 'str_replace', path: file, old_str: 'needle', new_str: 'pin' });
    expect(out.is_error).toBe(true);
    const lines = Array.from({ length: 50 }, (_, i) => 2 * i + 2);
    expect(text(out)).toBe(
      `No replacement was performed. Multiple occurrences of old_str \`needle\` in lines ${JSON.stringify(lines)} and 29950 more. Please ensure it is unique.`,
    );
  });
});

describe('file_editor output', () => {
  const clipped = (out: Obs) => {
    expect(out.is_error).toBe(false);
    expect(text(out).length).toBeLessThan(17_000);
    expect(text(out)).toContain('only part of this file has been shown to you');
    expect(text(out)).toContain('`view_range`');
  };

  it('shows the head of a big file with a note pointing to view_range, whole, in a range or undone', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'big.txt');
    writeFileSync(file, Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`).join('\n'));
    const whole = await edit({ command: 'view', path: file });
    clipped(whole);
    expect(text(whole)).toContain('     1\tline 1\n     2\tline 2\n');
    const range = await edit({ command: 'view', path: file, view_range: [100_000, -1] });
    clipped(range);
    expect(text(range)).toContain(`100000\tline 100000\n100001\tline 100001\n`);
    await edit({ command: 'insert', path: file, insert_line: 0, new_str: 'top' });
    const undone = await edit({ command: 'undo_edit', path: file });
    clipped(undone);
    expect(text(undone)).toContain('     1\tline 1\n');
  });

  it('shows a snippet of a big insertion clipped', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'small.txt');
    writeFileSync(file, 'a\nb\n');
    clipped(await edit({ command: 'insert', path: file, insert_line: 1, new_str: 'new\n'.repeat(50_000) }));
  });

  it('shows a file that fits whole, without a note', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'fits.txt');
    writeFileSync(file, 'x'.repeat(15_000));
    const out = text(await edit({ command: 'view', path: file }));
    expect(out).toBe(`Here's the result of running \`cat -n\` on ${file}:\n     1\t${'x'.repeat(15_000)}\n`);
  });
});

describe('file_editor folder view', () => {
  it('lists at most 500 entries, reads no folder past them, and counts the rest of those it read', async () => {
    const { dir, edit } = editor();
    mkdirSync(join(dir, 'a'));
    for (let i = 0; i < 600; i++) writeFileSync(join(dir, 'a', `f${String(i).padStart(3, '0')}`), '');
    for (const name of ['b', 'c']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'inside'), '');
    }
    writeFileSync(join(dir, '.hidden'), '');
    const out = text(await edit({ command: 'view', path: dir }));
    const lines = out.split('\n');
    expect(lines[1]).toBe(`${join(dir, 'a')}/`);
    expect(lines[500]).toBe(join(dir, 'a', 'f498'));
    expect(lines[501]).toBe(
      '… 103 more entries not shown, nor what is in the folders among them. View a subfolder, or use `ls` or `find` in the terminal, to see them.',
    );
    expect(out).not.toContain('inside');
    expect(out).toContain('1 hidden files/directories');
  });
});

describe('file_editor undo history', () => {
  it('keeps 32 MiB of earlier versions across files, dropping the oldest, and says so', async () => {
    const { dir, edit } = editor();
    const small = join(dir, 'small.txt');
    const big = join(dir, 'big.txt');
    writeFileSync(small, 'one\n');
    writeFileSync(big, `${'x'.repeat(89)}\n`.repeat(100_000)); // 9 MB: four versions pass the bound
    await edit({ command: 'insert', path: small, insert_line: 0, new_str: 'zero' });
    for (let i = 0; i < 4; i++)
      await edit({ command: 'insert', path: big, insert_line: 0, new_str: `v${i}` });
    for (let i = 3; i > 0; i--) {
      const undone = await edit({ command: 'undo_edit', path: big });
      expect(undone.is_error).toBe(false);
      expect(text(undone)).toContain(`     1\tv${i - 1}\n`);
    }
    const gone = await edit({ command: 'undo_edit', path: big });
    expect(gone.is_error).toBe(true);
    expect(text(gone)).toBe(
      `No earlier version of ${big} is kept: the undo history keeps 10 versions of a file and 32 MiB of text across files, dropping the oldest.`,
    );
    expect(text(await edit({ command: 'undo_edit', path: small }))).toContain('No earlier version');
  });

  it('keeps ten versions of a file and says so past them', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'f.txt');
    writeFileSync(file, '0');
    for (let i = 1; i <= 11; i++)
      await edit({ command: 'str_replace', path: file, old_str: `${i - 1}`, new_str: `${i}` });
    for (let i = 0; i < 10; i++)
      expect((await edit({ command: 'undo_edit', path: file })).is_error).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('1');
    expect(text(await edit({ command: 'undo_edit', path: file }))).toContain(
      `No earlier version of ${file} is kept`,
    );
  });
});
