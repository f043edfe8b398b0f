// V8 settings the agentd process sets for itself, on import (boot.ts imports it before it runs the
// bundle, so they apply before the bundle loads): `node dist/cli.js serve` (and a sandbox's
// `agentd agent`) run without command-line flags. Only flags V8 reads each time it uses them are set
// here: one read once at heap set-up (--max-semi-space-size) would do nothing this late, and some
// (--single-threaded-gc) crash V8 when changed on a running heap.
//
// Measured on the N=50 echo task of `npm run bench -- bin-first` (Node 20): peak RSS 153–160 MB, of it
// ~30 MB the young generation grown to its 16 MB semi-spaces (by start-up's allocations, then kept),
// and ~25 MB a transient peak while V8 recompiled undici's HTTP parser (WebAssembly, used by fetch,
// so by the LLM SDKs) with its optimizing tier on background threads; over many tasks, dead data
// piling up in the old generation between V8's infrequent full collections.
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** The young generation's semi-spaces grow to this at most (V8's own limit on 64-bit: 16 MB). */
const SEMI_SPACE_CAP = 4 * 2 ** 20;

const growth = (factor: number) => v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);
const newSpaceSize = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/** Whether the operator set a flag matching `pattern` (execArgv, NODE_OPTIONS): theirs wins. */
function operatorSet(pattern: RegExp): boolean {
  return pattern.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
}

// No recompiling of WebAssembly with the optimizing tier: what it costs (~25 MB of compiler memory at
// once, mid-task) buys nothing for an HTTP parser reading LLM answers.
v8.setFlagsFromString('--liftoff-only');

// The young generation: loading the bundle is one long synchronous burst of allocation that would
// grow it to V8's 16 MB semi-spaces (32 MB resident for the process's life): held at its initial
// 1 MB meanwhile. From the first turn of the event loop (an immediate, not unref'd: unref'd, it would
// wait for the first I/O) it may double again, and is held once a collection's report (a turn or two
// later) sees it at the cap. An empty young generation costs its
// size in RSS; a small one, scavenges: ~22 in a 50-step task at 1 MB (measured: ~5% more server CPU
// per step), ~5 at 4 MB, ~1.5 at 16 MB. A turn that keeps megabytes alive may grow it a doubling or
// two past the cap before the report comes; never past V8's own limit.
const managesYoungGeneration = !operatorSet(/semi[-_]space/);
if (managesYoungGeneration) {
  growth(1);
  setImmediate(() => {
    growth(2);
    const watch = new PerformanceObserver(() => {
      if (newSpaceSize() < 2 * SEMI_SPACE_CAP) return;
      growth(1);
      watch.disconnect();
    });
    watch.observe({ entryTypes: ['gc'] });
  });
}

// After each full collection the old generation may grow by half of what survived before the next
// one, not by V8's own factor (up to 4× on a machine this size): a server's old generation is mostly
// dead LLM requests and events of finished steps, which would otherwise pile up (measured after 49
// tasks of 50 steps: peak RSS 215 → 144 MB; server CPU per step the same within noise).
if (!operatorSet(/heap[-_]growing/)) v8.setFlagsFromString('--heap-growing-percent=50');

/**
 * Puts back the flags as they were when this module ran, the only ones V8 compiled the bundle under:
 * V8 refuses a code cache made under other flags (code-cache.ts, just before it makes one at exit).
 */
export function restoreLoadTimeFlags(): void {
  if (managesYoungGeneration) growth(1);
}
