// dist/cli.js, the `agentd` binary: sets the process's V8 flags (runtime/heap.ts) before the bundle
// loads and allocates, then runs every command's code, bundled from main.ts into dist/agentd.cjs, with
// V8's code cache (code-cache.ts).
import { fileURLToPath } from 'node:url';
import { configureHeap, markPhase, restoreLoadTimeFlags } from '../runtime/heap.js';
import { runBundle } from './code-cache.js';

// Not Node 22's module.enableCompileCache as well: it does not see a vm script, and what it would
// cache (the lazy bundles, ~8 ms for the OpenAI one) is loaded while the server is idle; it would
// also leave its folder (node-compile-cache) in the temp folder.
// Start-up phases are marked (performance.mark('agentd:…')) for whoever observes them (bench/README.md).
configureHeap();
markPhase('agentd:boot');
runBundle(fileURLToPath(new URL('./agentd.cjs', import.meta.url)), restoreLoadTimeFlags);
