// Builds dist/: the `agentd` binary (dist/cli.js, from src/cli/boot.ts) runs every command's code,
// bundled from src/cli/main.ts into dist/agentd.cjs, with V8's code cache (src/cli/code-cache.ts),
// which this build writes by starting a server once; then dist/validators.cjs (dist/precompile.mjs,
// below) and the web UI. Type checking is separate (`npm run check`); this stays fast so `npm start`
// can rebuild whenever a source changed.
//
// Why CommonJS: vm.Script is the one way to hand V8 a code cache on Node 20 (it has no compile cache
// for modules), and a vm script cannot import() (not without --experimental-vm-modules), so the
// bundle loads what it loads later through require: esbuild turns each import() into one.
//
// Pure-JS dependencies are bundled in: loading one file is much faster than resolving hundreds of
// small ESM modules (typebox alone costs ~220 ms unbundled), which keeps cold start short. External
// stay the native modules and packages that read their own files at run time. The LLM SDKs and the
// database and Redis clients are bundled too, but into files of their own (dist/lazy-*.cjs) that load
// on first use: requiring the bundled openai takes ~8 ms against ~230 ms for the package's own files.
// pino is bundled (Fastify loads it at start-up; its dozen files from node_modules cost ~30 ms): only
// its transports read files of their own (worker threads), and agentd starts none; thread-stream,
// which they run, loads from node_modules on first use (below).
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildWeb } from './build-web.mjs';

// What Fastify requires only where agentd does not go: its default compilers (agentd passes its own,
// server/validation.ts) and inject()'s light-my-request (loaded on first use; the /docs instance
// uses it). Bundled, they were ~400 KB to parse at every start; left out, they load from
// node_modules (they are Fastify's own dependencies) on the rare call.
const notAtStartUp = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request'];

const external = [
  ...notAtStartUp,
  // better-sqlite3's JavaScript is bundled (its dozen files through Node's loader were ~6 ms of every
  // start); its addon is named by the store (store/sqlite/store.ts), so bindings' search is never called.
  'bindings',
  '@lydell/node-pty',
  '@fastify/swagger-ui',
  'playwright-core',
  '@modelcontextprotocol/sdk',
];

// Modules that bundled code requires when it loads but calls only on a path agentd rarely or never
// takes: yaml (@fastify/swagger's YAML document, for /docs); json-schema-resolver with debug
// (@fastify/swagger's $ref resolver, called when the OpenAPI document is first made; debug's set-up
// showed as ~5 ms in a start's profile); duplexify with its readable-stream (@fastify/websocket's
// injectWS, for tests); thread-stream (pino's transports, which agentd starts none of; it reads its
// own worker file, so it is never bundled); Node's http2 (Fastify's HTTP/2 servers, which agentd
// never makes; ~5 ms to load); Node's tls, https and zlib (ws's client, for wss:// URLs and
// compressed messages, and Fastify's HTTPS servers: a server's start calls none of them; ~3 ms to
// load). Each becomes a stand-in that loads the real module (from node_modules, or Node's own) on
// first use, so a start does not load them. A module that takes names out of one as it loads
// (@fastify/multipart's `const { unlink } = require('node:fs/promises')`) loads it at once: no use
// listing it here.
const onFirstUse = [
  ...['yaml', 'json-schema-resolver', 'duplexify', 'thread-stream'],
  ...['node:http2', 'tls', 'https', 'node:https', 'zlib'],
];
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

// find-my-way (Fastify's router) makes functions from source text (new Function) as routes are
// added, compiled anew by every process (V8's code cache does not hold code made at run time). In the
// bundle, closures do the same work, and the build fails here if a replaced function changes upstream,
// so the replacement is looked at again:
// - for every static path segment of 2 to 15 characters, a function matching it at a lookup (~180 at a
//   start, ~8 ms here): matched with String#startsWith, as the module already matches longer ones
//   with indexOf (the generated code compares the characters after the first; the first is the one
//   its parent found the node by);
// - for every route, the function making a matched request's params object from the values found
//   (~190 at a start, ~1.8 ms here): one closure over the route's parameter names, assigning them in
//   the same order to the same kind of object.
const ROUTER_CODEGEN = [
  {
    file: /find-my-way[\\/]lib[\\/]node\.js$/,
    from: `  const lines = []
  for (let i = 1; i < prefix.length; i++) {
    const charCode = prefix.charCodeAt(i)
    lines.push(\`path.charCodeAt(i + \${i}) === \${charCode}\`)
  }
  return new Function('path', 'i', \`'use strict'\\nreturn \${lines.join(' && ')}\`) // eslint-disable-line
`,
    to: `  return function matchPrefix (path, i) {
    return path.startsWith(prefix, i)
  }
`,
  },
  {
    file: /find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    from: `    const fnBody = ["'use strict'"]

    // Parameter values arrive by position: the first four as arguments and
    // any further ones in the extraParams array. This mirrors how the
    // router's find() collects them without allocating an array.
    fnBody.push('const fn = function _createParamsObject (param0, param1, param2, param3, extraParams) {')

    fnBody.push('const params = new NullObject()')
    for (let i = 0; i < params.length; i++) {
      const value = i < 4 ? \`param\${i}\` : \`extraParams[\${i - 4}]\`
      fnBody.push(\`params[\${JSON.stringify(params[i])}] = \${value}\`)
    }
    fnBody.push('return params')
    fnBody.push('}')

    fnBody.push('return fn')

    return new Function('NullObject', fnBody.join('\\n'))(NullObject)  // eslint-disable-line
`,
    to: `    const names = params.slice()
    return function _createParamsObject (param0, param1, param2, param3, extraParams) {
      const result = new NullObject()
      for (let i = 0; i < names.length; i++) {
        result[names[i]] =
          i === 0 ? param0 : i === 1 ? param1 : i === 2 ? param2 : i === 3 ? param3 : extraParams[i - 4]
      }
      return result
    }
`,
  },
];

const routerWithoutCodegen = {
  name: 'router-without-codegen',
  setup(b) {
    for (const patch of ROUTER_CODEGEN) {
      b.onLoad({ filter: patch.file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(patch.from))
          throw new Error(
            `${args.path}: a function made from source changed; see ROUTER_CODEGEN in scripts/build.mjs`,
          );
        return { contents: text.replace(patch.from, patch.to), loader: 'js' };
      });
    }
  },
};

// Loaded on first use, each from a bundle of its own (dist/lazy-<name>.cjs): a server that never
// calls Claude, PostgreSQL or Redis does not parse them. The import() of one becomes a require of its
// file, whose module.exports is the package's namespace: callers take named exports (the default
// would be the whole namespace).
const lazy = { openai: 'openai', anthropic: '@anthropic-ai/sdk', pg: 'pg', ioredis: 'ioredis' };

const loadLazily = {
  name: 'load-lazily',
  setup(b) {
    for (const [name, pkg] of Object.entries(lazy)) {
      const filter = new RegExp(`^${pkg.replace('/', '\\/')}$`);
      b.onResolve({ filter }, () => ({ path: `./lazy-${name}.cjs`, external: true }));
    }
  },
};

const common = {
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // V8 parses every byte of a script it compiles without a cache, and keeps the source in memory:
  // without comments and spaces the bundle is a third smaller. Names are kept, so stack traces and logs
  // read as the source does.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};
const commonJs = {
  ...common,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  supported: { 'dynamic-import': false }, // import() → require (see above)
  // The sources are ESM and read import.meta.url (files beside the bundle): the bundle's own URL.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};

// Earlier builds' files this one does not write (the chunks of the ESM layout before agentd.cjs).
mkdirSync('dist', { recursive: true });
for (const name of readdirSync('dist', { withFileTypes: true })) {
  if (name.isFile() && /\.js(\.map)?$/.test(name.name)) rmSync(join('dist', name.name));
}

// The bundle comes in Node's module wrapper, which runBundle (src/cli/code-cache.ts) compiles as it
// is: V8 keeps a script's source for the process's life, and a wrapper added at run time made it a
// second copy of the file (1.9 MB more heap). On the first line, so the source map's lines stay the
// bundle's.
await build({
  ...commonJs,
  entryPoints: { agentd: 'src/cli/main.ts' },
  external,
  plugins: [loadOnFirstUse, loadLazily, routerWithoutCodegen],
  banner: { js: `(function (exports, require, module, __filename, __dirname) {${commonJs.banner.js}` },
  footer: { js: '})' },
});
await build({
  ...commonJs,
  entryPoints: Object.fromEntries(Object.entries(lazy).map(([name, pkg]) => [`lazy-${name}`, pkg])),
  external,
});
// The binary: the V8 flags (src/runtime/heap.ts), then the bundle. CommonJS too, as dist/package.json
// declares for dist/*.js: an ES module entry costs Node its module loader first (~4 ms of every start
// here).
await build({
  ...commonJs,
  entryPoints: { cli: 'src/cli/boot.ts' },
  outExtension: {},
  banner: { js: `#!/usr/bin/env node\n${commonJs.banner.js}` },
});
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
// The build step below (src/server/precompile.ts), never loaded by the binary.
await build({
  ...common,
  entryPoints: { precompile: 'src/server/precompile-main.ts' },
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  external: [...external, ...Object.values(lazy)],
  plugins: [loadOnFirstUse],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
});
asciiOnly('dist');
// The validators a fresh server would compile on its first requests (~130 ms of blocked loop on the
// 2-core machine), built now from the bundle just made: src/server/precompile.ts, events/precompiled.ts.
execFileSync(process.execPath, ['dist/precompile.mjs', 'dist/validators.cjs'], { stdio: 'inherit' });
await writeCodeCache();

await buildWeb();

/**
 * V8 keeps a script's source in memory for the process's life, as one byte per character only if
 * every character is Latin-1: one `→` makes the whole 1.9 MB of agentd.cjs two bytes a character (3.8 MB
 * of heap). esbuild already escapes non-ASCII in strings, templates and regular expressions (its
 * default charset), so what remains is in comments: each such UTF-16 unit becomes `?`, which keeps
 * every column (and so the source map) where it was.
 */
function asciiOnly(dir) {
  for (const name of readdirSync(dir)) {
    if (!/\.c?js$/.test(name)) continue;
    const file = `${dir}/${name}`;
    const text = readFileSync(file, 'utf8');
    const ascii = text.replace(/[\u0080-\uffff]/g, '?');
    if (ascii !== text) writeFileSync(file, ascii);
  }
}

/**
 * Writes dist/agentd.cjs's code cache (src/cli/code-cache.ts) as a serving process leaves it: a server
 * started on a folder of its own, asked /ready once it listens and then stopped, so the cache holds
 * what a start and its first answer compile.
 * A start that fails leaves no cache: the first server to stop writes it then.
 */
async function writeCodeCache() {
  const cacheFile = 'dist/agentd.cjs.v8cache';
  rmSync(cacheFile, { force: true });
  const data = mkdtempSync(join(tmpdir(), 'agentd-build-'));
  // The embedded default whatever this shell's settings (AGENTD_DATABASE_URL would reach a database).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AGENTD_')));
  try {
    const args = ['dist/cli.js', 'serve', '--port', '0', '--data-dir', data, '--sandbox-provider', 'process'];
    const server = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    let out = '';
    let asked = false;
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (!url || asked) return;
      asked = true;
      // One request first, as whoever starts a server sends (a readiness probe): the code that
      // answers requests goes into the cache too, or every start's first answer compiles it.
      fetch(`${url}/ready`)
        .then((res) => res.arrayBuffer())
        .catch(() => {})
        .finally(() => server.kill('SIGINT'));
    });
    const timer = setTimeout(() => server.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
  if (!existsSync(cacheFile))
    console.warn(`${cacheFile} not written (the server did not start); the first server to stop writes it`);
}
