// V8 settings the agentd process sets for itself: `node dist/cli.js serve` (and a sandbox's
// `agentd agent`) run without command-line flags, so the binary sets them as it boots
// (`configureHeap`, called by cli/boot.ts before the bundle loads) and start-up's phases hold the
// young generation at its cap (`markPhase`). Only flags V8 reads each time it uses them are set: one
// read once at heap set-up (--max-semi-space-size) would do nothing this late, and some
// (--single-threaded-gc) crash V8 when changed on a running heap. One on the command line would do
// (and an operator's own wins, below), but costs a start more: with --max-semi-space-size given
// there, the boot phase took ~8 ms longer here.
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
/**
 * The young generation's growth factor while the bundle loads: one growth from V8's initial 1 MB
 * semi-spaces reaches the cap, where V8's own factor (2) took two, with a scavenge more at each size.
 */
const LOAD_GROWTH = 4;

const growth = (factor: number) => v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);
/** Both semi-spaces. */
const newSpaceSize = () =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/** Whether the operator set a flag matching `pattern` (execArgv, NODE_OPTIONS): theirs wins. */
function operatorSet(pattern: RegExp): boolean {
  return pattern.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
}

/** Whether agentd sizes the young generation (no operator flag of their own; read once per copy). */
const MANAGES_YOUNG_GENERATION = !operatorSet(/semi[-_]space/);
/** Whether agentd holds back the first full collection during start-up (likewise). */
const MANAGES_FIRST_MARKING = !operatorSet(/incremental[-_]marking/);

/** While starting: old-generation marking starts once the old generation is this % of its limit. */
const START_UP_MARKING_TRIGGER = 90;
/** V8's own rule again this long after boot: a start is over by then (~130 ms here). */
export const START_UP_MS = 1_000;
const markingTrigger = (percent: number) =>
  v8.setFlagsFromString(`--incremental-marking-soft-trigger=${percent}`);

/** Stops the young generation growing once it is at the cap; whether it is. */
function holdAtCap(): boolean {
  if (newSpaceSize() < 2 * SEMI_SPACE_CAP) return false;
  growth(1);
  return true;
}

/**
 * Marks a phase of start-up (a performance mark, read by the bench and by cli/code-cache.ts) and holds
 * the young generation if it reached its cap meanwhile. It keeps no state, so the binary's entry and
 * the bundle (each with its own copy of this module) may both call it.
 */
export function markPhase(mark: `agentd:${string}`): void {
  performance.mark(mark);
  if (MANAGES_YOUNG_GENERATION) holdAtCap();
}

/** Sets the process's V8 flags; the binary calls it first, before it loads the bundle. */
export function configureHeap(): void {
  // No recompiling of WebAssembly with the optimizing tier: what it costs (~25 MB of compiler memory
  // at once, mid-task) buys nothing for an HTTP parser reading LLM answers. Node 20 and 22 honour
  // --liftoff-only set now; Node 24's V8 (13.6) reads it, and --wasm-dynamic-tiering, only as it
  // starts (set now they change nothing: peak RSS of the N=50 task 114.0–118.6 MB there), but
  // reads the tiering budget as each module is compiled: at its largest (2^31 - 1, 165 times Node
  // 24's default of 13,000,000) a function is recompiled only after 165 times the work that got it
  // recompiled before (100.1–100.2 MB on Node 24).
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString(`--wasm-tiering-budget=${2 ** 31 - 1}`);

  // The young generation: V8 grows it (doubling its semi-spaces after a scavenge that kept much) up to
  // 16 MB semi-spaces, 32 MB resident for the process's life once grown. It may grow to 4 MB: an
  // empty young generation costs its size in RSS; a small one, scavenges (~22 in a 50-step task at
  // 1 MB, measured ~5% more server CPU per step; ~5 at 4 MB, ~1.5 at 16 MB). Loading the bundle is one
  // long synchronous burst of allocation, most of it kept, where no callback runs: the phases that
  // start-up marks hold it at the cap (`markPhase`). Held at its initial 1 MB instead while the bundle
  // loaded, it took 13 scavenges and a full collection before `/ready` against 8 and none: listening
  // at 151.0 against 141.7 ms (medians of 25, alternated), for the same RSS. Until then it grows by
  // LOAD_GROWTH, from 1 MB straight to the cap: 7 scavenges before listening against 9 at V8's
  // doubling, ~8.2 against ~9.0 ms of them (--trace-gc, 12 starts each); main-thread CPU at `/ready`
  // −2.1 ms (medians of 41 alternated starts), for 0.6 MB more RSS there. From the first turn of the event loop (an immediate, not unref'd: unref'd, it
  // would wait for the first I/O) a collection's report (a turn or two later) holds it once it is at
  // the cap. A turn that keeps megabytes alive may grow it once past the cap before the report comes;
  // never past V8's own limit.
  if (MANAGES_YOUNG_GENERATION) {
    growth(LOAD_GROWTH);
    setImmediate(() => {
      if (holdAtCap()) return;
      const watch = new PerformanceObserver(() => {
        if (holdAtCap()) watch.disconnect();
      });
      watch.observe({ entryTypes: ['gc'] });
    });
  }

  // After each full collection the old generation may grow by half of what survived before the next
  // one, not by V8's own factor (up to 4× on a machine this size): a server's old generation is mostly
  // dead LLM requests and events of finished steps, which would otherwise pile up (measured after 49
  // tasks of 50 steps: peak RSS 215 → 144 MB; server CPU per step the same within noise).
  if (!operatorSet(/heap[-_]growing/)) v8.setFlagsFromString('--heap-growing-percent=50');

  // The first full collection waits for the start to be over. V8 starts marking the old generation
  // once the room left under its limit is less than the young generation's size: traced here, it
  // began during the app's build with 11 MB of a 19 MB limit used, and its steps and the collection
  // (~7 ms of the main thread) came just before or after listening, often on the first answer's
  // path. Until START_UP_MS, marking starts at 90% of the limit (past the limit V8 collects at once,
  // as ever): the collection comes after the start, on a heap a few MB larger meanwhile. Main-thread
  // CPU at the first /ready 157 -> 146 ms, spawn -> /ready 171 -> 166 ms (medians of 21, alternated;
  // two more runs: 143.5 -> 142.4 of 21, 149.7 -> 148.2 ms of 31). The trigger is one of the flags a
  // code cache is made under.
  if (MANAGES_FIRST_MARKING) {
    markingTrigger(START_UP_MARKING_TRIGGER);
    setTimeout(() => markingTrigger(0), START_UP_MS).unref(); // 0: V8's own rule
  }
}

/**
 * Puts back the flags as they were when the bundle was compiled, the only ones V8 takes its code
 * cache under (cli/code-cache.ts calls it just before it makes one at exit): the growth factor and
 * the marking trigger (checked: a cache made at trigger 90 is refused at 0).
 */
export function restoreLoadTimeFlags(): void {
  if (MANAGES_YOUNG_GENERATION) growth(LOAD_GROWTH);
  if (MANAGES_FIRST_MARKING) markingTrigger(START_UP_MARKING_TRIGGER);
}
