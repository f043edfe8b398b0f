// apply_patch on real files: the format (add, delete, update, move, anchors, end of file), how loosely
// hunks may match (fuzz), line endings, and the observation OpenHands' clients read.
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Observation, parse } from '../../src/events/index.js';
import { text } from '../support/tools.js';
import { patchOf, patchWorkspace } from './patch-fixture.js';

describe('apply_patch', () => {
  it('adds, deletes and updates files in one patch, several hunks in one file', async () => {
    const { apply, read, ws } = patchWorkspace({
      'app.py': 'import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n',
      'old.txt': 'bye\n',
    });
    const result = await apply(
      patchOf(
        '*** Add File: docs/new.md',
        '+# New',
        '+',
        '+text',
        '*** Update File: app.py',
        '@@',
        ' def a():',
        '-    return 1',
        '+    return 10',
        '@@',
        ' def c():',
        '-    return 3',
        '+    return 30',
        '+',
        '+def d():',
        '+    return 4',
        '*** Delete File: old.txt',
      ),
    );
    expect(result.is_error).toBe(false);
    expect(read('docs/new.md')).toBe('# New\n\ntext\n');
    expect(read('app.py')).toBe(
      'import os\n\ndef a():\n    return 10\n\ndef b():\n    return 2\n\ndef c():\n    return 30\n\ndef d():\n    return 4\n',
    );
    expect(existsSync(join(ws, 'old.txt'))).toBe(false);
    // OpenHands' members exactly, every FileChange with its four.
    expect(result).toEqual({
      kind: 'ApplyPatchObservation',
      message: 'Done! The patch changed 3 files:\n- added docs/new.md\n- updated app.py\n- deleted old.txt',
      fuzz: 0,
      commit: {
        changes: {
          'docs/new.md': { type: 'add', old_content: null, new_content: '# New\n\ntext\n', move_path: null },
          'app.py': {
            type: 'update',
            old_content: expect.stringContaining('return 1\n'),
            new_content: read('app.py'),
            move_path: null,
          },
          'old.txt': { type: 'delete', old_content: 'bye\n', new_content: null, move_path: null },
        },
      },
      content: [{ type: 'text', text: result.message, cache_prompt: false }],
      is_error: false,
    });
    const valid = parse(Observation, structuredClone(result));
    expect(valid.ok ? valid.value : valid.errors).toEqual(result);
  });

  it('moves a file, with or without changing it, keeping its permissions', async () => {
    const { apply, read, ws } = patchWorkspace({ 'run.sh': 'echo one\n', 'plain.txt': 'same\n' });
    chmodSync(join(ws, 'run.sh'), 0o755);
    const result = await apply(
      patchOf(
        '*** Update File: run.sh',
        '*** Move to: bin/run.sh',
        '@@',
        '-echo one',
        '+echo two',
        '*** Update File: plain.txt',
        '*** Move to: renamed.txt',
      ),
    );
    expect(text(result)).toBe(
      'Done! The patch changed 2 files:\n- moved run.sh to bin/run.sh and updated it\n- moved plain.txt to renamed.txt',
    );
    expect(existsSync(join(ws, 'run.sh'))).toBe(false);
    expect(read('bin/run.sh')).toBe('echo two\n');
    expect(statSync(join(ws, 'bin/run.sh')).mode & 0o777).toBe(0o755);
    expect(read('renamed.txt')).toBe('same\n');
    expect((result.commit as { changes: Record<string, unknown> }).changes['run.sh']).toEqual({
      type: 'update',
      old_content: 'echo one\n',
      new_content: 'echo two\n',
      move_path: 'bin/run.sh',
    });
  });

  it('finds a hunk below its @@ lines: the second of two identical bodies, a method inside a class', async () => {
    const source = [
      'class A:',
      '    def f(self):',
      '        return 0',
      '',
      'class B:',
      '    def g(self):',
      '        return 0',
      '',
      '    def f(self):',
      '        return 0',
      '',
    ].join('\n');
    const { apply, read } = patchWorkspace({ 'm.py': source });
    const result = await apply(
      patchOf(
        '*** Update File: m.py',
        '@@ class B:',
        '@@     def f(self):',
        '-        return 0',
        '+        return 2',
      ),
    );
    expect(result).toMatchObject({ is_error: false, fuzz: 0 });
    expect(read('m.py')).toBe(source.replace(/return 0\n$/, 'return 2\n'));

    // A unified diff's line numbers are no anchor; a plain `@@ def` line with a stray indent matches loosely.
    const again = await apply(
      patchOf(
        '*** Update File: m.py',
        '@@ -1,3 +1,3 @@',
        '@@   def g(self):',
        '-        return 0',
        '+        return 1',
      ),
    );
    expect(again).toMatchObject({ is_error: false, fuzz: 1 });
    expect(read('m.py')).toContain('    def g(self):\n        return 1\n');
  });

  it('puts an *** End of File hunk at the end, and adds at the end with no context', async () => {
    const { apply, read } = patchWorkspace({ 'list.txt': 'x\nend\nx\nend\n' });
    const result = await apply(
      patchOf('*** Update File: list.txt', '@@', ' x', '-end', '+END', '*** End of File'),
    );
    expect(result).toMatchObject({ is_error: false, fuzz: 0 });
    expect(read('list.txt')).toBe('x\nend\nx\nEND\n');
    await apply(patchOf('*** Update File: list.txt', '@@', '+tail', '*** End of File'));
    expect(read('list.txt')).toBe('x\nend\nx\nEND\ntail\n');
    // Context that is not at the end still applies, flagged with OpenHands' end-of-file weight.
    const away = await apply(patchOf('*** Update File: list.txt', '@@', '-end', '+mid', '*** End of File'));
    expect(away).toMatchObject({ is_error: false, fuzz: 10_000 });
    expect(read('list.txt')).toBe('x\nmid\nx\nEND\ntail\n');
  });

  it('matches ignoring trailing, then surrounding whitespace, counting fuzz and keeping the file’s context', async () => {
    const { apply, read } = patchWorkspace({
      'w.txt': 'a\ncontext line   \nend\n',
      'i.py': '\tif x:\n\t\tgo()\n',
    });
    const trailing = await apply(patchOf('*** Update File: w.txt', '@@', ' context line', '-end', '+END'));
    expect(trailing).toMatchObject({ is_error: false, fuzz: 1 });
    expect(read('w.txt')).toBe('a\ncontext line   \nEND\n');
    expect(text(trailing)).toContain('matched only loosely (fuzz 1');

    const indented = await apply(
      patchOf('*** Update File: i.py', '@@', '    if x:', '-        go()', '+\t\tstop()'),
    );
    expect(indented).toMatchObject({ is_error: false, fuzz: 100 });
    expect(read('i.py')).toBe('\tif x:\n\t\tstop()\n');
  });

  it('keeps CRLF line endings, whatever the patch’s own', async () => {
    const { apply, read } = patchWorkspace({ 'win.txt': 'one\r\ntwo\r\nthree\r\n' });
    const crlfPatch = patchOf(
      '*** Update File: win.txt',
      '@@',
      ' one',
      '-two',
      '+2',
      '+2.5',
      ' three',
    ).replace(/\n/g, '\r\n');
    expect((await apply(crlfPatch)).is_error).toBe(false);
    expect(read('win.txt')).toBe('one\r\n2\r\n2.5\r\nthree\r\n');
  });

  it('keeps a file without a final newline without one', async () => {
    const { apply, read } = patchWorkspace({ 'n.txt': 'first\nlast', 'e.txt': '' });
    expect((await apply(patchOf('*** Update File: n.txt', '@@', ' first', '-last', '+LAST'))).is_error).toBe(
      false,
    );
    expect(read('n.txt')).toBe('first\nLAST');
    await apply(patchOf('*** Update File: n.txt', '@@', ' LAST', '+after', '*** End of File'));
    expect(read('n.txt')).toBe('first\nLAST\nafter');
    // An empty file has no last line to keep bare: lines added to it end with a newline.
    await apply(patchOf('*** Update File: e.txt', '@@', '+now here'));
    expect(read('e.txt')).toBe('now here\n');
  });
});
