// dist/cli.js, the `agentd` binary: sets the process's V8 flags (heap.ts, when its module is
// evaluated: before the bundle loads and allocates), then runs every command's code, bundled from
// main.ts into dist/agentd.cjs, with V8's code cache (code-cache.ts).
import nodeModule from 'node:module';
import { fileURLToPath } from 'node:url';
import { runBundle } from './code-cache.js';
import { restoreLoadTimeFlags } from './heap.js';

// Node 22.1+ keeps V8's compiled code on disk (tmpdir, or NODE_COMPILE_CACHE) for what the bundle
// loads later through require (the LLM SDKs' bundles, native modules' JavaScript); it never throws.
// Node 20 has no such API: nothing happens there.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

runBundle(fileURLToPath(new URL('./agentd.cjs', import.meta.url)), restoreLoadTimeFlags);
