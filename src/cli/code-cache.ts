// Runs a CommonJS bundle (dist/agentd.cjs, every command's code) with V8's code cache: what V8
// compiled in an earlier run is read back instead of parsing and compiling the bundle again. Node 20
// keeps no such cache for modules (Node 22's module.enableCompileCache does, but not for vm scripts),
// hence CommonJS through vm.Script, the API that takes V8's cached data. The file holds the module in
// Node's module wrapper, `(function (exports, require, module, __filename, __dirname) {…})`, as the
// build writes it: a script's value is then the module's function.
//
// The cache file (`<bundle>.v8cache`) starts with a SHA-1 of the bundle it was made from: V8 itself
// checks only the source's length (besides its own version and flags), and bytecode made from another
// bundle of the same length would run. A cache that is missing, made from another bundle, or refused by
// V8 (another Node, other V8 flags) is written anew when the process exits, from everything it
// compiled by then; the build writes the first by starting a server (scripts/build.mjs). After the
// hash, one byte says whether a server wrote it (the process reached SERVED_MARK): a cache that
// another command wrote (`agentd --version` after a Node upgrade) holds little of a server's start,
// which then compiled the rest at every start (~40 ms more here), so the first server to use it
// writes it anew. A folder it cannot write (a read-only install, a sandbox's mount) is left as it is.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import { markPhase } from '../runtime/heap.js';

const HASH_BYTES = 20; // SHA-1
const HEADER_BYTES = HASH_BYTES + 1; // the hash, then 1 when a server wrote the cache

/** Marked by a server once it listens (serve.ts): its cache is the one a start should find. */
export const SERVED_MARK = 'agentd:listening';
const served = () => performance.getEntriesByName(SERVED_MARK, 'mark').length > 0;

/** What became of the bundle's cache in this run. */
export type CodeCacheOutcome = 'used' | 'missing' | 'other-bundle' | 'refused';

/**
 * Runs `file` (a CommonJS module in Node's module wrapper) as a module of its own folder.
 * `beforeWrite` runs just before the cache is made: it must put back any V8 flag the process changed
 * since `file` was compiled, since V8 refuses a cache made under other flags.
 */
export function runBundle(file: string, beforeWrite: () => void = () => {}): CodeCacheOutcome {
  const bytes = readFileSync(file);
  const hash = createHash('sha1').update(bytes).digest();
  // The build writes an ASCII-only bundle (scripts/build.mjs): Latin-1 decodes it as UTF-8 would,
  // without UTF-8's checks (~3 ms of 2 MB).
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const cacheFile = `${file}.v8cache`;
  let stored: Buffer | undefined;
  try {
    stored = readFileSync(cacheFile);
  } catch {
    // none yet, or unreadable: compiled from source, written at exit
  }
  const cachedData = stored?.subarray(0, HASH_BYTES).equals(hash) ? stored.subarray(HEADER_BYTES) : undefined;
  const writtenByServer = stored?.[HASH_BYTES] === 1;
  // The file is a function expression, Node's module wrapper around the module (scripts/build.mjs):
  // V8 keeps a script's source for the process's life, and the file's own text is the one copy.
  const script = new Script(source, { filename: file, cachedData });
  markPhase('agentd:bundle compiled');
  const outcome: CodeCacheOutcome = !stored
    ? 'missing'
    : !cachedData
      ? 'other-bundle'
      : script.cachedDataRejected
        ? 'refused'
        : 'used';

  const writeCache = (byServer: boolean) => {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      beforeWrite();
      writeFileSync(temp, Buffer.concat([hash, Buffer.of(byServer ? 1 : 0), script.createCachedData()]));
      renameSync(temp, cacheFile); // whole or not at all: another process may be reading it
    } catch {
      rmSync(temp, { force: true });
    }
  };
  process.once('exit', () => {
    const byServer = served();
    if (outcome !== 'used' || (byServer && !writtenByServer)) writeCache(byServer);
  });

  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return outcome;
}
