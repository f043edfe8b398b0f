// `node dist/precompile.mjs <file>`: run by scripts/build.mjs after the bundle is built (precompile.ts).
import { writePrecompiledValidators } from './precompile.js';

const file = process.argv[2];
if (!file) throw new Error('usage: precompile.mjs <output file>');
await writePrecompiledValidators(file);
