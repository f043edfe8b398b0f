// The bundle run with V8's code cache (src/cli/code-cache.ts): in real child Node processes, as
// dist/cli.js runs dist/agentd.cjs; and the real binary leaving the build's cache as it found it.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { START_UP_MS } from '../../src/runtime/heap.js';
import { runCli } from '../support/cli.js';
import { plainModule } from '../support/plain-module.js';
import { tempDir } from '../support/server.js';

// code-cache.ts as plain JavaScript, so the child runs only it and the bundle.
let loader = '';
beforeAll(() => {
  loader = plainModule('cli/code-cache.ts');
});

/**
 * A bundle that prints what it was given (require, __dirname, module) and a word of its own; run with
 * SERVE set, it marks what a server marks once it listens. In Node's module wrapper, as the build
 * writes dist/agentd.cjs.
 */
const bundle = (word: string) =>
  `(function (exports, require, module, __filename, __dirname) {
process.stdout.write([require('node:path').basename(__dirname), typeof module.exports, ${JSON.stringify(word)}].join(' '));
if (process.env.SERVE) performance.mark('agentd:listening');
function unused() { return [1, 2, 3].map((n) => n * 2); }
})`;

/** Runs `file` through runBundle in a child Node; its output, then the outcome. */
function run(file: string, env: Record<string, string> = {}): { printed: string; outcome: string } {
  const script = `
    const { runBundle } = await import(${JSON.stringify(loader)});
    const outcome = runBundle(${JSON.stringify(file)});
    process.stdout.write('|' + outcome);
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}`);
  const [printed = '', outcome = ''] = child.stdout.split('|');
  return { printed, outcome };
}

describe('a bundle run with the code cache', () => {
  it('writes the cache when it has none and uses it on the next run', () => {
    const dir = tempDir('agentd-bundle-');
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, bundle('first'));
    const folder = dir.split('/').pop();
    expect(run(file)).toEqual({ printed: `${folder} object first`, outcome: 'missing' });
    expect(statSync(`${file}.v8cache`).size).toBeGreaterThan(20);
    expect(run(file)).toEqual({ printed: `${folder} object first`, outcome: 'used' });
  });

  it('never runs the cache of another bundle of the same length (V8 checks only the length)', () => {
    const file = join(tempDir('agentd-bundle-'), 'bundle.cjs');
    writeFileSync(file, bundle('first'));
    run(file);
    writeFileSync(file, bundle('other'));
    expect(run(file)).toMatchObject({ printed: expect.stringMatching(/ other$/), outcome: 'other-bundle' });
    expect(run(file)).toMatchObject({ printed: expect.stringMatching(/ other$/), outcome: 'used' });
  });

  it('is written anew by the first server to use a cache that another command wrote, and then kept', () => {
    const file = join(tempDir('agentd-bundle-'), 'bundle.cjs');
    writeFileSync(file, bundle('first'));
    const cache = () => readFileSync(`${file}.v8cache`);
    expect(run(file).outcome).toBe('missing');
    expect(cache()[20]).toBe(0); // after the hash: no server wrote it
    const byCommand = cache();
    expect(run(file, { SERVE: '1' }).outcome).toBe('used');
    expect(cache()[20]).toBe(1);
    expect(cache().equals(byCommand)).toBe(false);
    const byServer = cache();
    expect(run(file).outcome).toBe('used');
    expect(run(file, { SERVE: '1' }).outcome).toBe('used');
    expect(cache().equals(byServer)).toBe(true);
  });

  it('replaces a cache V8 refuses', () => {
    const file = join(tempDir('agentd-bundle-'), 'bundle.cjs');
    writeFileSync(file, bundle('first'));
    run(file);
    const cache = readFileSync(`${file}.v8cache`);
    writeFileSync(
      `${file}.v8cache`,
      Buffer.concat([cache.subarray(0, 21), Buffer.alloc(cache.length - 21, 7)]),
    );
    expect(run(file)).toMatchObject({ printed: expect.stringMatching(/ first$/), outcome: 'refused' });
    expect(run(file).outcome).toBe('used');
  });
});

describe('the agentd binary', () => {
  const serverArgs = () => ['--port', '0', '--data-dir', tempDir(), '--sandbox-provider', 'process'];

  // The build wrote the cache from a server it started and stopped; a server started now must find it
  // good (same bundle, same V8 flags: runtime/heap.ts changes two while the server runs and puts them
  // back before the cache is made), or it would write it anew when it stops.
  it("takes the build's cache as it is", async () => {
    const cacheFile = fileURLToPath(new URL('../../dist/agentd.cjs.v8cache', import.meta.url));
    const before = statSync(cacheFile).mtimeMs;
    const cli = await runCli(serverArgs());
    expect((await fetch(`${cli.url}/alive`)).status).toBe(200);
    expect(await cli.stop()).toBe(0);
    expect(statSync(cacheFile).mtimeMs).toBe(before);
  });

  // A server past its first second has put V8's marking trigger back to V8's own (runtime/heap.ts): a
  // cache it makes then (after a Node upgrade, say) must be made under the flags of a start, or every
  // start after would refuse it and write it anew.
  it('writes, from a server that ran past its start, a cache the next start takes', async () => {
    const pkg = tempDir('agentd-binary-copy-');
    cpSync(fileURLToPath(new URL('../../dist', import.meta.url)), join(pkg, 'dist'), { recursive: true });
    symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(pkg, 'node_modules'));
    cpSync(fileURLToPath(new URL('../../package.json', import.meta.url)), join(pkg, 'package.json'));
    const cacheFile = join(pkg, 'dist', 'agentd.cjs.v8cache');
    rmSync(cacheFile);
    const serveFor = async (ms: number) => {
      const cli = await runCli(serverArgs(), { command: [process.execPath, join(pkg, 'dist', 'cli.js')] });
      await new Promise((resolve) => setTimeout(resolve, ms));
      expect(await cli.stop()).toBe(0);
    };
    await serveFor(START_UP_MS + 500);
    const written = statSync(cacheFile).mtimeMs;
    await serveFor(START_UP_MS + 500);
    expect(statSync(cacheFile).mtimeMs).toBe(written);
  });
});
