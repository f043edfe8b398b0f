// A module of src/ as plain JavaScript, for a child Node to import as it is: through a TypeScript
// loader the child would load (and allocate, and compile) more than the module. For modules that
// import only Node's own (src/cli/heap.ts, src/cli/code-cache.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { tempDir } from './server.js';

/** `path` (under src/, e.g. 'cli/heap.ts') compiled to an .mjs file in a temp folder; its path. */
export function plainModule(path: string): string {
  const source = readFileSync(fileURLToPath(new URL(`../../src/${path}`, import.meta.url)), 'utf8');
  const file = join(tempDir('agentd-plain-module-'), basename(path).replace(/\.ts$/, '.mjs'));
  writeFileSync(file, transformSync(source, { loader: 'ts', format: 'esm' }).code);
  return file;
}
