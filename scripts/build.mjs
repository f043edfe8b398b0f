// Bundles src/cli/main.ts into dist/cli.js, then runs dist/precompile.js to write dist/validators.cjs
// (below). Type checking is separate (`npm run check`); this stays fast so `npm start` can rebuild
// every time.
//
// Pure-JS dependencies are bundled in: loading one file is much faster than resolving hundreds of
// small ESM modules (typebox alone costs ~220 ms unbundled), which keeps cold start short. External
// stay the native modules and packages that read their own files at run time. The LLM SDKs are
// bundled too, but into chunks of their own (splitting) that load on first use: importing the
// bundled openai chunk takes ~40 ms against ~180 ms for the package's own files. pino is bundled
// (Fastify loads it at start-up; its dozen files from node_modules cost ~30 ms): only its transports
// read files of their own (worker threads), and agentd starts none; thread-stream, which they run,
// loads from node_modules on first use (below).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

// What Fastify requires only where agentd does not go: its default compilers (agentd passes its own,
// server/validation.ts) and inject()'s light-my-request (loaded on first use; the /docs instance
// uses it). Bundled, they were ~400 KB to parse at every start; left out, they load from
// node_modules (they are Fastify's own dependencies) on the rare call.
const notAtStartUp = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request'];

const external = [
  ...notAtStartUp,
  'better-sqlite3',
  '@lydell/node-pty',
  '@fastify/swagger-ui',
  'playwright-core',
  '@modelcontextprotocol/sdk',
];

// Modules that bundled code requires when it loads but calls only on a path agentd rarely or never
// takes: yaml (@fastify/swagger's YAML document, for /docs); duplexify with its readable-stream
// (@fastify/websocket's injectWS, for tests); thread-stream (pino's transports, which agentd starts
// none of; it reads its own worker file, so it is never bundled); Node's http2 (Fastify's HTTP/2
// servers, which agentd never makes; ~5 ms to load). Each becomes a stand-in that loads the real
// module (from node_modules) on first use, so a start does not parse them (~340 KB).
const onFirstUse = ['yaml', 'duplexify', 'thread-stream', 'node:http2'];
// Installed (as dependencies of what is bundled), or the build fails here rather than a call later.
for (const name of [...notAtStartUp, ...onFirstUse]) createRequire(import.meta.url).resolve(name);

const standIn = `let real;
const load = () => (real ??= require(NAME));
module.exports = new Proxy(function () {}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  apply: (_, self, args) => Reflect.apply(load(), self, args),
  construct: (_, args) => Reflect.construct(load(), args),
});
`;

const loadOnFirstUse = {
  name: 'load-on-first-use',
  setup(b) {
    const filter = new RegExp(`^(${onFirstUse.join('|')})$`);
    // From a stand-in the name is external (Node's require at run time); from anywhere else, the stand-in.
    b.onResolve({ filter }, (args) =>
      args.namespace === 'on-first-use'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'on-first-use' },
    );
    b.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({
      contents: standIn.replace('NAME', JSON.stringify(args.path)),
      loader: 'js',
    }));
  },
};

await build({
  // precompile: the build step below (src/server/precompile.ts), never loaded by cli.js.
  entryPoints: { cli: 'src/cli/main.ts', precompile: 'src/server/precompile-main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  target: 'node20',
  external,
  plugins: [loadOnFirstUse],
  sourcemap: true,
  // V8 parses every byte of a module it loads: without comments and spaces the chunk a serve loads is
  // 1.7 MB instead of 2.5 MB (main-thread CPU to /ready ~30 ms less, median of 11 on the 2-core
  // machine). Names are kept, so stack traces and logs still read as the source does.
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundled CommonJS code calls require(); give the ESM bundle one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
asciiOnly('dist');
// The validators a fresh server would compile on its first requests (~130 ms of blocked loop on the
// 2-core machine), built now from the bundle just made: src/server/precompile.ts, events/precompiled.ts.
execFileSync(process.execPath, ['dist/precompile.js', 'dist/validators.cjs'], { stdio: 'inherit' });

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
