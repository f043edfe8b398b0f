// glob and grep, with ripgrep and with the plain walk, never report or read what a link outside the
// workspace leads to; and the low-level guards (resolving, O_NOFOLLOW reads, rename writes) hold
// even when a link appears after the check.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNoFollow, writeAtomic } from '../../src/tools/files/atomic.js';
import {
  defaultFinder,
  type FileFinder,
  ripgrepFinder,
  walkFiles,
  walkFinder,
} from '../../src/tools/files/finders.js';
import { PathError, realPath, resolveInWorkspace } from '../../src/tools/paths.js';
import { linkedWorkspace, type Obs, snapshot, text, toolsIn } from './symlink-fixture.js';

// The system ripgrep the tools would use (the plain-walk tests run either way).
const rg = (process.env.PATH ?? '')
  .split(':')
  .filter(Boolean)
  .map((dir) => join(dir, 'rg'))
  .find((p) => existsSync(p));
const finders: [string, FileFinder | undefined][] = [
  ['ripgrep', rg ? ripgrepFinder(rg) : undefined],
  ['the plain walk', walkFinder],
];

describe.each(finders)('glob and grep with %s', (_name, finder) => {
  it.skipIf(!finder)('never report files through a link that leaves, nor search from one', async () => {
    const { ws, outside, before } = linkedWorkspace();
    const call = toolsIn(ws, {}, finder);
    const globbed = (await call('glob', { pattern: '**/*' })).files as string[];
    expect(globbed).toContain(join(ws, 'sub', 'a.txt'));
    expect(
      globbed.filter((f) => f.includes('outdir') || f.includes('secret') || f.includes('deeper')),
    ).toEqual([]);
    // Links are not files of their own: ripgrep's rule, and the walk's.
    expect(globbed).not.toContain(join(ws, 'pw'));
    expect(globbed).not.toContain(join(ws, 'infile'));
    const grepped = await call('grep', { pattern: 'SECRET' });
    expect(grepped).toMatchObject({ is_error: false, matches: [] });
    expect((await call('grep', { pattern: 'alpha' })).matches).toEqual([join(ws, 'sub', 'a.txt')]);
    for (const root of ['outdir', 'outdir/deep', join(ws, 'outdir'), 'pw', outside]) {
      const g = (await call('glob', { pattern: '*', path: root })) as Obs;
      expect(g.is_error, root).toBe(true);
      expect(text(g)).toContain('outside the workspace');
      const r = (await call('grep', { pattern: 'SECRET', path: root })) as Obs;
      expect(r.is_error, root).toBe(true);
      expect(JSON.stringify(r)).not.toContain('deeper');
    }
    expect(snapshot(outside)).toEqual(before);
  });

  it.skipIf(!finder)('search a folder linked inside the workspace, named as the agent named it', async () => {
    const { ws } = linkedWorkspace();
    const call = toolsIn(ws, {}, finder);
    const globbed = await call('glob', { pattern: '*.txt', path: 'indir' });
    expect(globbed).toMatchObject({ is_error: false, files: [join(ws, 'indir', 'a.txt')] });
    expect((await call('grep', { pattern: 'alpha', path: 'indir' })).matches).toEqual([
      join(ws, 'indir', 'a.txt'),
    ]);
    const notFolder = await call('glob', { pattern: '*', path: 'infile' });
    expect(text(notFolder)).toContain('Not a directory');
  });
});

describe('the finders', () => {
  it('use the system ripgrep when there is one', () => {
    expect(defaultFinder().name).toBe(rg ? 'ripgrep' : 'walk');
  });

  it('walk regular files only, never into links', () => {
    const { ws } = linkedWorkspace();
    expect(walkFiles(ws).sort()).toEqual(['inner.txt', join('sub', 'a.txt')]);
  });

  it.skipIf(!rg)('keep ripgrep from following links even when its config asks to', async () => {
    const { base, ws } = linkedWorkspace();
    const config = join(base, 'ripgreprc');
    writeFileSync(config, '--follow\n');
    const previous = process.env.RIPGREP_CONFIG_PATH;
    process.env.RIPGREP_CONFIG_PATH = config;
    try {
      expect(await ripgrepFinder(rg as string).grep(ws, 'SECRET')).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.RIPGREP_CONFIG_PATH;
      else process.env.RIPGREP_CONFIG_PATH = previous;
    }
  });
});

describe('resolving and the guards under it', () => {
  it('resolves links at every level, dangling ones to where they point', () => {
    const { ws, outside } = linkedWorkspace();
    expect(realPath(join(ws, 'outdir', 'deep', 'x', 'y.txt'))).toBe(join(outside, 'deep', 'x', 'y.txt'));
    expect(realPath(join(ws, 'gone'))).toBe(join(outside, 'new.txt'));
    expect(realPath(join(ws, 'indir', '..', 'inner.txt'))).toBe(join(ws, 'inner.txt'));
    expect(realPath(join(ws, 'inner.txt', 'below'))).toBe(join(ws, 'inner.txt', 'below'));
    expect(() => realPath(join(ws, 'loop'))).toThrow(PathError);
    // A link whose target climbs out with `..` is outside too.
    symlinkSync('../../outside/secret.txt', join(ws, 'sub', 'climb'));
    expect(() => resolveInWorkspace('sub/climb', { workingDir: ws }, {})).toThrow(/outside the workspace/);
    expect(resolveInWorkspace('indir/a.txt', { workingDir: ws }, {})).toEqual({
      path: join(ws, 'indir', 'a.txt'),
      real: join(ws, 'sub', 'a.txt'),
    });
  });

  it('replace a link planted at the checked path instead of writing through it', () => {
    const { ws, outside, before } = linkedWorkspace();
    // As if the link appeared between resolveInWorkspace and the write.
    writeAtomic(join(ws, 'pw'), 'replaced');
    expect(lstatSync(join(ws, 'pw')).isFile()).toBe(true);
    expect(readFileSync(join(ws, 'pw'), 'utf8')).toBe('replaced');
    expect(snapshot(outside)).toEqual(before);
    // A folder that became a link is refused before anything is written.
    expect(() => writeAtomic(join(ws, 'outdir', 'x.txt'), 'x')).toThrow(PathError);
    expect(snapshot(outside)).toEqual(before);
  });

  it('refuse to read through a link planted at the checked path, and a FIFO', () => {
    const { ws } = linkedWorkspace();
    const tooLarge = () => new Error('too large');
    expect(() => readNoFollow(join(ws, 'pw'), 1024, tooLarge)).toThrow(/became a symbolic link/);
    expect(readNoFollow(join(ws, 'inner.txt'), 1024, tooLarge).toString()).toBe('inner line\n');
    expect(() => readNoFollow(join(ws, 'inner.txt'), 2, tooLarge)).toThrow('too large');
    mkdirSync(join(ws, 'pipes'));
    execFileSync('mkfifo', [join(ws, 'pipes', 'fifo')]);
    expect(() => readNoFollow(join(ws, 'pipes', 'fifo'), 1024, tooLarge)).toThrow(/not a regular file/);
  });
});
