// V8 settings the agentd process sets for itself, on import (main.ts imports this module first, so
// they apply before the rest of the bundle loads): `node dist/cli.js serve` (and a sandbox's
// `agentd agent`) run without command-line flags. Only flags V8 reads each time it uses them are set
// here: one read once at heap set-up (--max-semi-space-size) would do nothing this late, and some
// (--single-threaded-gc) crash V8 when changed on a running heap.
//
// Measured on the N=50 echo task of `npm run bench -- bin-first` (Node 20): peak RSS 153–160 MB, of it
// ~30 MB the young generation grown to its 16 MB semi-spaces (by start-up's allocations, then kept),
// and ~25 MB a transient peak while V8 recompiled undici's HTTP parser (WebAssembly, used by fetch,
// so by the LLM SDKs) with its optimizing tier on background threads; over many tasks, dead data
// piling up in the old generation between V8's infrequent full collections.
import v8 from 'node:v8';

/** Whether the operator set a flag matching `pattern` (execArgv, NODE_OPTIONS): theirs wins. */
function operatorSet(pattern: RegExp): boolean {
  return pattern.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
}

// No recompiling of WebAssembly with the optimizing tier: what it costs (~25 MB of compiler memory at
// once, mid-task) buys nothing for an HTTP parser reading LLM answers.
v8.setFlagsFromString('--liftoff-only');

// The young generation stays at its initial 1 MB semi-spaces instead of growing to 16 MB (32 MB
// resident for the process's life, grown by loading the bundle alone). The price is more scavenges of
// a smaller space: ~22 instead of ~1.5 in a 50-step task, for server CPU per step that measured the
// same within noise (the agent bench, base and this side by side). No cap in between: growth can only be stopped after V8 reports
// a collection, a turn or two late, by when a busy start-up has grown it past any cap.
if (!operatorSet(/semi[-_]space/)) v8.setFlagsFromString('--semi-space-growth-factor=1');

// After each full collection the old generation may grow by half of what survived before the next
// one, not by V8's own factor (up to 4× on a machine this size): a server's old generation is mostly
// dead LLM requests and events of finished steps, which would otherwise pile up (measured after 49
// tasks of 50 steps: peak RSS 215 → 144 MB; server CPU per step the same within noise).
if (!operatorSet(/heap[-_]growing/)) v8.setFlagsFromString('--heap-growing-percent=50');
