// `npm start`: builds dist/ only when a source is newer than it, so a start with nothing changed
// does not pay for esbuild (about a second on a 2-core machine), then runs dist/cli.js in this same
// process (a prestart script would cost a second Node start and shell). Sources: everything under
// src/ and web/ (where present), the build scripts, package.json and the lockfile (a dependency
// change can change the bundle). npm runs it in the package folder, which the paths are relative to.
// CommonJS, as dist/cli.js is: an ES module here loaded Node's module loader before the first line,
// and went through it again to import the binary (the binary's boot mark 45.4 -> 34.5 ms here).
const { readdirSync, statSync } = require('node:fs');

const OUTPUT = 'dist/cli.js';
const ABSENT_IS_UNDEFINED = { throwIfNoEntry: false }; // a link to nowhere counts as absent

// The walk makes as little garbage as it can: it ran path.join and a Dirent per entry, ~270 KB more
// for ~320 entries, collected before the bundle loaded, and the server's start then took longer in
// its app phase, not in the walk: listening 151.7 -> 136.2 ms (medians of 21, alternated; the walk
// alone 4-6.7 -> 2.6 ms). Traced then, the first full collection's marking began ~40 ms before
// listening, not ~10; with that collection held back (src/runtime/heap.ts) the old walk still cost
// the app phase ~11 ms (listening 154.4 vs 143.0 ms, 21 alternated): more than that collection, not
// traced further (V8 sizes the heap from what its first scavenges keep, which this garbage changes).
/** The newest modification time of `path` and, for a folder, of everything under it; 0 if absent. */
function newestUnder(path) {
  const stat = statSync(path, ABSENT_IS_UNDEFINED);
  if (!stat) return 0;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  if (stat.isDirectory())
    for (const name of readdirSync(path)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const time = newestUnder(`${path}/${name}`);
      if (time > newest) newest = time;
    }
  return newest;
}

const sources = [
  'src',
  'web',
  'package.json',
  'package-lock.json',
  ...readdirSync('scripts')
    .filter((name) => name.startsWith('build'))
    .map((name) => `scripts/${name}`),
];
const built = newestUnder(OUTPUT);
const run = () => require('../dist/cli.js');
if (sources.some((source) => newestUnder(source) > built)) import('./build.mjs').then(run);
else run();
