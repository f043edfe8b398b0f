// Bundles src/cli/main.ts into dist/cli.js. Type checking is separate (`npm run check`); this stays
// fast so `npm start` can rebuild every time.
//
// Pure-JS dependencies are bundled in: loading one file is much faster than resolving hundreds of
// small ESM modules (typebox alone costs ~220 ms unbundled), which keeps cold start short. External
// stay the native modules and packages that read their own files at run time. The LLM SDKs are
// bundled too, but into chunks of their own (splitting) that load on first use: importing the
// bundled openai chunk takes ~40 ms against ~180 ms for the package's own files.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

const external = [
  'better-sqlite3',
  '@lydell/node-pty',
  '@fastify/swagger-ui',
  'playwright-core',
  '@modelcontextprotocol/sdk',
  'pino',
  'thread-stream',
];

await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  target: 'node20',
  external,
  sourcemap: true,
  // Bundled CommonJS code calls require(); give the ESM bundle one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
asciiOnly('dist');

await buildWeb();

/**
 * V8 keeps a script's source in memory for the process's life, as one byte per character only if
 * every character is Latin-1: one `→` makes the whole 4.3 MB of cli.js two bytes a character (8.6 MB
 * of heap). esbuild already escapes non-ASCII in strings, templates and regular expressions (its
 * default charset), so what remains is in comments: each such UTF-16 unit becomes `?`, which keeps
 * every column (and so the source map) where it was.
 */
function asciiOnly(dir) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = `${dir}/${name}`;
    const text = readFileSync(file, 'utf8');
    const ascii = text.replace(/[\u0080-\uffff]/g, '?');
    if (ascii !== text) writeFileSync(file, ascii);
  }
}
