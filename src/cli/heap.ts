// V8 settings the agentd process sets for itself, on import (main.ts imports this module first, so
// they apply before the rest of the bundle loads): `node dist/cli.js serve` (and a sandbox's
// `agentd agent`) run without command-line flags.
// Only flags V8 reads each time it uses them are set here — ones read once at heap set-up (e.g.
// --max-semi-space-size) would silently do nothing this late.
//
// Measured on the N=50 echo task of `npm run bench -- bin-first` (Node 20): peak RSS 153–160 MB, of it
// ~30 MB the young generation grown to its 16 MB semi-spaces (by start-up's allocations, then kept),
// and ~25 MB a transient peak while V8 recompiled undici's HTTP parser (WebAssembly, used by fetch,
// so by the LLM SDKs) with its optimizing tier on background threads.
import v8 from 'node:v8';

/** What this module sets; an operator's own young-generation flag (execArgv, NODE_OPTIONS) wins. */
export function serverHeapFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  const flags = ['--liftoff-only'];
  // The young generation stays at its initial 1 MB semi-spaces: a server's allocations are short
  // request and step garbage that a small nursery clears as well; no regrowth to 16 MB.
  if (!/semi[-_]space/.test([...execArgv, nodeOptions].join(' '))) flags.push('--semi-space-growth-factor=1');
  return flags;
}

for (const flag of serverHeapFlags()) v8.setFlagsFromString(flag);
