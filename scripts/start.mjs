// `npm start`: builds dist/ only when a source is newer than it, so a start with nothing changed
// does not pay for esbuild (about a second on a 2-core machine), then runs dist/cli.js in this same
// process (a prestart script would cost a second Node start and shell). Sources: everything under
// src/ and web/ (where present), the build scripts, package.json and the lockfile (a dependency
// change can change the bundle). npm runs it in the package folder, which the paths are relative to.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const OUTPUT = 'dist/cli.js';

function newestUnder(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestUnder(join(path, entry.name)));
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
    .map((name) => join('scripts', name)),
];
const built = existsSync(OUTPUT) ? statSync(OUTPUT).mtimeMs : 0;
if (sources.some((source) => newestUnder(source) > built)) await import('./build.mjs');
await import('../dist/cli.js');
