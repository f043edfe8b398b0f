// `npm start`: builds dist/ only when a source is newer than it, so a start with nothing changed
// does not pay for esbuild (about a second on a 2-core machine), then runs dist/cli.js in this same
// process (a prestart script would cost a second Node start and shell). Sources: everything under
// src/ and web/ (where present), the build scripts, package.json and the lockfile (a dependency
// change can change the bundle). npm runs it in the package folder, which the paths are relative to.
// CommonJS, as dist/cli.js is: an ES module here loaded Node's module loader before the first line,
// and went through it again to import the binary (the binary's boot mark 45.4 -> 34.5 ms here).
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const OUTPUT = 'dist/cli.js';

/** The newest modification time of `path` and, for a folder, of everything under it; 0 if absent. */
function newestUnder(path) {
  const stat = statSync(path, { throwIfNoEntry: false }); // a link to nowhere counts as absent
  if (!stat) return 0;
  return stat.isDirectory() ? newestIn(path, stat.mtimeMs) : stat.mtimeMs;
}

/** One stat per file: a folder's listing says which entries are files (a deleted file changes its folder's time). */
function newestIn(dir, dirTime) {
  let newest = dirTime;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isFile() ? modified(path) : newestUnder(path));
  }
  return newest;
}

function modified(path) {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

const sources = [
  'src',
  'web',
  'package.json',
  'package-lock.json',
  ...readdirSync('scripts')
    .filter((name) => name.startsWith('build'))
    .map((name) => join('scripts', name)),
];
const built = modified(OUTPUT);
const run = () => require('../dist/cli.js');
if (sources.some((source) => newestUnder(source) > built)) import('./build.mjs').then(run);
else run();
