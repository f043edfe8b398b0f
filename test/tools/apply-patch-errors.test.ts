// apply_patch refusing: every malformed patch and every change that does not fit is an error the agent
// reads, and nothing is written — not even the parts before the failure. Paths stay in the workspace.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PATCH_BYTES } from '../../src/tools/patch/tool.js';
import { text } from '../support/tools.js';
import { patcher, patchOf, patchWorkspace } from './patch-fixture.js';
import { linkedWorkspace, SECRET, snapshot } from './symlink-fixture.js';

const FILES = {
  'a.txt': 'alpha\nbeta\n',
  'b.txt': 'one\ntwo\n',
  'c.txt': 'gone soon\n',
  'bin.dat': 'x\0y\n',
};

/** The error observation: its text (also its `message`), no commit, and the workspace untouched. */
async function refused(patch: string, files: Record<string, string> = FILES): Promise<string> {
  const { apply, ws } = patchWorkspace(files);
  const before = snapshot(ws);
  const result = await apply(patch);
  expect(result).toMatchObject({ kind: 'ApplyPatchObservation', is_error: true, fuzz: 0, commit: null });
  expect(result.message).toBe(text(result));
  expect(snapshot(ws)).toEqual(before);
  return text(result);
}

describe('apply_patch refuses', () => {
  it('a patch without its markers, with an unknown line, or naming no file', async () => {
    expect(await refused('*** Update File: a.txt\n*** End Patch')).toMatch(
      /^Invalid patch: it must start with '\*\*\* Begin Patch'\./,
    );
    expect(await refused('*** Begin Patch\n*** Delete File: a.txt')).toMatch(
      /^Invalid patch: it must end with '\*\*\* End Patch'\./,
    );
    expect(await refused(patchOf('*** Delete File: a.txt', 'rm -rf /'))).toMatch(/^Unknown Line: rm -rf \//);
    expect(await refused(patchOf())).toMatch(/^Invalid patch: it names no file/);
    expect(await refused(patchOf('*** Add File:', '+x'))).toMatch(/^Add File Error: no path/);
  });

  it('malformed sections: an added line without +, a hunk line without its prefix, an empty hunk, no hunks', async () => {
    expect(await refused(patchOf('*** Add File: n.txt', '+ok', 'oops'))).toMatch(
      /^Invalid Add File Line in n.txt: oops/,
    );
    expect(await refused(patchOf('*** Update File: a.txt', '@@', ' alpha', '*beta'))).toMatch(
      /^Invalid Line in a.txt: \*beta/,
    );
    expect(await refused(patchOf('*** Update File: a.txt', '@@', '*** End of File'))).toMatch(
      /an empty hunk in a.txt/,
    );
    expect(await refused(patchOf('*** Update File: a.txt'))).toMatch(
      /^Update File Error: no hunks for a.txt/,
    );
    expect(await refused(patchOf('*** Update File: a.txt', '*** Move to:', '@@', '-alpha'))).toMatch(
      /^Update File Error: no path after/,
    );
  });

  it('missing files, an added file that exists, a move onto an existing file, duplicate paths', async () => {
    expect(await refused(patchOf('*** Update File: nope.txt', '@@', '-x'))).toMatch(
      /^Update File Error: Missing File: nope.txt\nThe patch was not applied: no file was changed\.$/,
    );
    expect(await refused(patchOf('*** Delete File: nope.txt'))).toMatch(
      /^Delete File Error: Missing File: nope.txt/,
    );
    expect(await refused(patchOf('*** Add File: a.txt', '+x'))).toMatch(
      /^Add File Error: File already exists: a.txt; use '\*\*\* Update File: a.txt'/,
    );
    expect(await refused(patchOf('*** Update File: a.txt', '*** Move to: b.txt'))).toMatch(
      /^Update File Error: cannot move a.txt to b.txt: b.txt already exists/,
    );
    expect(await refused(patchOf('*** Delete File: a.txt', '*** Delete File: a.txt'))).toMatch(
      /^Delete File Error: Duplicate Path: a.txt;/,
    );
    expect(
      await refused(patchOf('*** Add File: d.txt', '+1', '*** Update File: b.txt', '*** Move to: ./d.txt')),
    ).toMatch(/^Update File Error: Duplicate Path: .\/d.txt \(the same file as d.txt\)/);
  });

  it('context that is not in the file, an @@ line that names no line, overlapping hunks', async () => {
    expect(await refused(patchOf('*** Update File: a.txt', '@@', ' alpha', '-gamma', '+G'))).toBe(
      'Invalid Context in a.txt: these lines were not found:\nalpha\ngamma\nThe patch was not applied: no file was changed.',
    );
    expect(await refused(patchOf('*** Update File: a.txt', '@@', '-gamma', '*** End of File'))).toMatch(
      /^Invalid EOF Context in a.txt/,
    );
    expect(await refused(patchOf('*** Update File: a.txt', '@@ def main():', '-beta', '+B'))).toMatch(
      /^Invalid Context in a.txt: no line matches '@@ def main\(\):'/,
    );
    const overlapping = patchOf('*** Update File: a.txt', '@@', ' alpha', '-beta', '@@', ' alpha', '+x');
    expect(await refused(overlapping)).toMatch(
      /^Invalid Context in a.txt \(hunk 2\): these lines were not found after line 2:/,
    );
  });

  it('binary files, directories, and a patch over the size limit', async () => {
    expect(await refused(patchOf('*** Update File: bin.dat', '@@', '-x'))).toMatch(
      /^Update File Error: bin.dat is a binary file/,
    );
    expect(await refused(patchOf('*** Delete File: .'))).toMatch(/^Delete File Error: . is a directory/);
    const huge = patchOf('*** Add File: big.txt', `+${'x'.repeat(MAX_PATCH_BYTES)}`);
    expect(await refused(huge)).toMatch(/^Patch too large: \d+ bytes; the limit is 4194304 bytes/);
  });

  it('the whole patch when a later file fails: the earlier ones stay as they were', async () => {
    const text = await refused(
      patchOf(
        '*** Add File: new.txt',
        '+fresh',
        '*** Update File: a.txt',
        '@@',
        '-alpha',
        '+ALPHA',
        '*** Delete File: b.txt',
        '*** Update File: b.txt',
        '@@',
        '-one',
      ),
    );
    expect(text).toMatch(/^Update File Error: Duplicate Path: b.txt/);
  });

  it('puts back what it wrote when a write fails midway', async () => {
    const { apply, ws } = patchWorkspace(FILES);
    const before = snapshot(ws);
    // `a.txt/inside.txt` resolves (nothing is there yet) but cannot be written: a.txt is a file.
    const result = await apply(
      patchOf(
        '*** Update File: b.txt',
        '@@',
        '-one',
        '+ONE',
        '*** Add File: fresh.txt',
        '+new',
        '*** Add File: a.txt/inside.txt',
        '+x',
        '*** Delete File: c.txt',
      ),
    );
    expect(result.is_error).toBe(true);
    expect(text(result)).toMatch(
      /^Writing a.txt\/inside.txt failed: .*\nThe patch was not applied: no file was changed\.$/,
    );
    expect(snapshot(ws)).toEqual(before);
  });
});

describe('apply_patch paths', () => {
  it('refuses paths outside the workspace and links that lead out of it', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const apply = patcher(ws);
    const out = [
      patchOf('*** Add File: ../escape.txt', '+x'),
      patchOf(`*** Add File: ${join(outside, 'abs.txt')}`, '+x'),
      patchOf('*** Update File: pw', '@@', '-SECRET outside the workspace', '+owned'),
      patchOf('*** Delete File: pw'),
      patchOf('*** Add File: outdir/planted.txt', '+x'),
      patchOf('*** Add File: gone', '+x'),
      patchOf('*** Update File: inner.txt', '*** Move to: outdir/moved.txt'),
    ];
    for (const patch of out) {
      const result = await apply(patch);
      expect(result.is_error, patch).toBe(true);
      expect(text(result)).toMatch(/outside the workspace/);
    }
    expect(snapshot(outside)).toEqual(before);
    expect(readFileSync(join(ws, 'inner.txt'), 'utf8')).toBe('inner line\n');
  });

  it('follows a link that stays inside, as every file tool does, and the link stays', async () => {
    const { ws } = linkedWorkspace();
    const apply = patcher(ws);
    const result = await apply(patchOf('*** Update File: infile', '@@', '-inner line', '+inner LINE'));
    expect(result.is_error).toBe(false);
    expect(readFileSync(join(ws, 'inner.txt'), 'utf8')).toBe('inner LINE\n');
    expect(snapshot(ws).infile).toBe('link:inner.txt');
    // Two names for one file are one file: a patch may not change it twice.
    const twice = await apply(patchOf('*** Update File: infile', '@@', '+a', '*** Delete File: inner.txt'));
    expect(text(twice)).toMatch(/^Delete File Error: Duplicate Path: inner.txt \(the same file as infile\)/);
  });

  it('writes outside only when the server allows paths outside the workspace', async () => {
    const { ws, outside } = linkedWorkspace();
    writeFileSync(join(outside, 'allowed.txt'), 'old\n');
    symlinkSync(join(outside, 'allowed.txt'), join(ws, 'to-allowed'));
    const apply = patcher(ws, { allowPathsOutsideWorkspace: true });
    const result = await apply(patchOf('*** Update File: to-allowed', '@@', '-old', '+new'));
    expect(result.is_error).toBe(false);
    expect(readFileSync(join(outside, 'allowed.txt'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });
});
