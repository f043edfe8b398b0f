// The V8 settings the agentd process sets for itself (src/runtime/heap.ts), observed in real child
// Node processes: each either configures its heap with the module (as dist/cli.js does first) or not,
// then runs a workload that would make V8 grow the young generation, or tier WebAssembly up to its
// optimizing compiler.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { plainModule } from '../support/plain-module.js';

// heap.ts as plain JavaScript: a child importing it through a TypeScript loader would have grown its
// young generation already, loading the loader.
let heapModule = '';
beforeAll(() => {
  heapModule = plainModule('runtime/heap.ts');
});

/**
 * Runs `body` (an async function body; `v8` in scope, and `heap`, the module, after configureHeap())
 * in a child Node.
 */
function child(body: string, options: { configureHeap: boolean; nodeArgs?: string[] }): unknown {
  const script = `
    const v8 = await import('node:v8');
    const heap = ${options.configureHeap ? `await import(${JSON.stringify(heapModule)})` : 'null'};
    heap?.configureHeap();
    const result = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(result));
  `;
  const run = spawnSync(
    process.execPath,
    [...(options.nodeArgs ?? []), '--input-type=module', '-e', script],
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  if (run.status !== 0) throw new Error(`child failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout);
}

// Many short-lived objects with a large share surviving a scavenge or two: what makes V8 grow the
// young generation (up to 16 MB semi-spaces by default), in slices of ~0.5 MB. Between slices: a
// turn of the event loop (as requests come), a phase of start-up marked within one synchronous burst
// (as the bundle loads), or nothing (a burst no phase marks). Answers the new space's size (both
// semi-spaces) at the end.
const BETWEEN_SLICES = {
  turn: 'await new Promise((resolve) => setImmediate(resolve));',
  phase: "heap?.markPhase('agentd:slice');",
  nothing: '',
};
const youngGrowth = (between: keyof typeof BETWEEN_SLICES) => `
  const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  let keep = [];
  for (let slice = 0; slice < 600; slice++) {
    for (let i = 0; i < 5_000; i++) {
      keep.push({ i, text: 'x' + i });
      if (keep.length > 200_000) keep = keep.slice(100_000);
    }
    ${BETWEEN_SLICES[between]}
  }
  return { after: size() };
`;
const INITIAL = 2 ** 20; // both semi-spaces when a process starts (Node 20 and 22)
const CAP = 2 * 4 * 2 ** 20; // SEMI_SPACE_CAP, both semi-spaces

describe('the process heap settings', () => {
  it('let the young generation grow to the cap only, held by the phases of start-up while the bundle loads', () => {
    const plain = child(youngGrowth('turn'), { configureHeap: false }) as { after: number };
    expect(plain.after).toBeGreaterThan(CAP); // the workload grows it past the cap by default
    const unmarked = child(youngGrowth('nothing'), { configureHeap: true }) as { after: number };
    expect(unmarked.after).toBeGreaterThan(CAP); // no callback runs in a synchronous burst
    const loading = child(youngGrowth('phase'), { configureHeap: true }) as { after: number };
    expect(loading.after).toBeGreaterThan(INITIAL);
    expect(loading.after).toBeLessThanOrEqual(CAP);
    const serving = child(youngGrowth('turn'), { configureHeap: true }) as { after: number };
    expect(serving.after).toBeGreaterThan(INITIAL);
    expect(serving.after).toBeLessThanOrEqual(CAP);
  });

  it("leave the young generation to an operator's own flag", () => {
    const nodeArgs = ['--max-semi-space-size=32'];
    const own = child(youngGrowth('phase'), { configureHeap: true, nodeArgs }) as { after: number };
    expect(own.after).toBeGreaterThan(CAP);
  });

  // Objects that survive the young generation and die in the old one, as finished steps' data does
  // (a ring of 300k live objects, replaced twenty times over). Answers the largest the old generation
  // got in the second half: before that, V8 sizes it by start-up heuristics that vary from run to run
  // (the largest over a shorter run read 86 MB with and without heap.ts in one CI run, 72-100 MB
  // otherwise), and V8 12 (Node 22) starts from a higher limit, so its first full collection comes
  // later (~280 MB here); after, by the growing factor, the same on every run (Node 20: 207 vs 88 MB;
  // Node 22: 632 vs 366 MB).
  const OLD_GARBAGE = `
    const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
    const ring = new Array(300_000);
    let largest = 0;
    for (let i = 0; i < 6_000_000; i++) {
      ring[i % 300_000] = { i, text: 'y' + i, list: [i, i + 1] };
      if (i % 100_000 === 0) {
        if (i > 3_000_000) largest = Math.max(largest, old());
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return largest;
  `;

  it('collect the old generation sooner, so its garbage grows it less', () => {
    // V8 without concurrent or idle-time GC work (--predictable): otherwise, on a loaded machine,
    // marking falls behind the allocation and the old generation grows whatever the growing factor
    // says (a run under load measured 94 vs 95 MB).
    const nodeArgs = ['--predictable'];
    const plain = child(OLD_GARBAGE, { configureHeap: false, nodeArgs }) as number;
    const limited = child(OLD_GARBAGE, { configureHeap: true, nodeArgs }) as number;
    expect(limited, `${limited} vs ${plain}`).toBeLessThan(plain * 0.7);
  });

  // A wasm function (i32.add) called hot; undici's HTTP parser behind fetch is such a module.
  const HOT_WASM = `
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,
      100,0,0,10,9,1,7,0,32,0,32,1,106,11]);
    const { instance } = await WebAssembly.instantiate(bytes);
    const add = instance.exports.add;
    const optimized = () => eval('%IsTurboFanFunction(add)');
    let sum = 0;
    // Tier-up runs on a background thread: call and yield until it shows, a bounded number of rounds.
    for (let round = 0; round < 20 && !optimized(); round++) {
      for (let i = 0; i < 1_000_000; i++) sum = add(sum, 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { optimized: optimized(), liftoff: eval('%IsLiftoffFunction(add)') };
  `;

  it('compile WebAssembly with the baseline compiler only (no optimizing recompilation)', () => {
    const nodeArgs = ['--allow-natives-syntax'];
    expect(child(HOT_WASM, { configureHeap: false, nodeArgs })).toEqual({ optimized: true, liftoff: false });
    expect(child(HOT_WASM, { configureHeap: true, nodeArgs })).toEqual({ optimized: false, liftoff: true });
  });

  // V8 keeps each script's source for the process's life, one byte a character only if all of it is
  // Latin-1 (scripts/build.mjs): the 1.9 MB bundle would otherwise take 3.8 MB.
  it('load a bundle that is ASCII only', () => {
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const scripts = readdirSync(dist).filter((name) => /\.c?js$/.test(name));
    expect(scripts).toContain('cli.js');
    for (const name of scripts) {
      const bytes = readFileSync(`${dist}${name}`);
      expect({ name, ascii: bytes.every((byte) => byte < 0x80) }).toEqual({ name, ascii: true });
    }
  });
});
