// A module of src/ as plain JavaScript, for a child Node to import as it is: through a TypeScript
// loader the child would load (and allocate, and compile) more than the module. For modules that
// import only Node's own and each other (src/runtime/heap.ts, src/cli/code-cache.ts), bundled into one
// file as the binary's entry bundles them.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { tempDir } from './server.js';

/** `path` (under src/, e.g. 'runtime/heap.ts') bundled to an .mjs file in a temp folder; its path. */
export function plainModule(path: string): string {
  const file = join(tempDir('agentd-plain-module-'), 'module.mjs');
  buildSync({
    entryPoints: [fileURLToPath(new URL(`../../src/${path}`, import.meta.url))],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  return file;
}
