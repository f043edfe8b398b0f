// Validators compiled when agentd is built, not when a fresh server first needs them: Ajv's
// standalone code for the schemas whose compile would otherwise block the loop inside a fresh
// server's first requests (2-core machine: the start-conversation body ~65 ms, the user message
// ~45 ms, the send-message body ~20 ms). scripts/build.mjs writes them to dist/validators.cjs
// (server/precompile.ts); the bundle loads that file on the first lookup.
//
// Each validator is named, and stored with a hash of the schema it was compiled from; a lookup
// whose schema hashes differently (sources changed since the build; a run from source has no file
// at all) answers null, and the caller compiles as before. The code is Ajv's own output for the
// same schema and options, so what it accepts, rejects, reports and fills in is the same.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv, ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { sharingCompiler } from './shared-subschemas.js';

// A CommonJS module whose exports are the function (as with ajv-formats in validate.ts).
const standaloneCode = standaloneModule as unknown as typeof standaloneModule.default;

interface PrecompiledModule {
  hashes: Record<string, string>;
  validators: Record<string, ValidateFunction>;
}

/** The file beside this module: in dist/, beside the bundle; from source, none. */
const BESIDE = fileURLToPath(new URL('./validators.cjs', import.meta.url));
/** What precompiledValidator reads. */
let source = BESIDE;
let loaded: PrecompiledModule | null | undefined;

/** Reads precompiled validators from `file` from now on (tests); without one, the file beside this module. */
export function usePrecompiledFile(file = BESIDE): void {
  source = file;
  loaded = undefined;
}

function precompiled(): PrecompiledModule | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (!existsSync(source)) return loaded;
  try {
    const require = createRequire(import.meta.url);
    loaded = (require(source) as (r: NodeJS.Require) => PrecompiledModule)(require);
  } catch {
    // A file that does not load (a build that failed half-way) is as good as none: every validator
    // is compiled, as from source. The build's test loads dist's file, so a broken one fails there.
  }
  return loaded;
}

/**
 * A hash of the JSON of `schema` and of every schema its references name, through `lookup`, and
 * theirs (only those: a server with more shared schemas than the build's still matches).
 */
export function schemaHash(
  schema: object,
  lookup: (id: string) => object | undefined = () => undefined,
): string {
  const hash = createHash('sha256').update(JSON.stringify(schema));
  const named = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    // An array's entries are its values too.
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !named.has(value)) {
        named.add(value);
        const target = lookup(value);
        hash.update(`\n${value}\n${JSON.stringify(target) ?? ''}`);
        visit(target);
      } else visit(value);
    }
  };
  visit(schema);
  return hash.digest('hex');
}

/**
 * The validator built for `name`, when it was built from a schema of this hash (`hash` is called
 * only when there is one to compare); otherwise null.
 */
export function precompiledValidator(name: string, hash: () => string): ValidateFunction | null {
  const module = precompiled();
  const validate = module?.validators[name];
  if (!module || !validate) return null;
  return module.hashes[name] === hash() ? validate : null;
}

export interface PrecompileEntry {
  name: string;
  schema: object;
  /** The hash precompiledValidator will be asked with for this name. */
  hash: string;
}

/** Entries compiled on one Ajv instance (made with `code.source`), through sharingCompiler with `lookup`. */
export interface PrecompileGroup {
  ajv: Ajv;
  lookup: (id: string) => object | undefined;
  entries: readonly PrecompileEntry[];
}

/** A CommonJS module (text) holding every group's validators, compiled as the server compiles them. */
export function standaloneValidators(groups: readonly PrecompileGroup[]): string {
  const hashes: Record<string, string> = {};
  // Each group's code in a scope of its own (Ajv names its functions validate0, validate1… per
  // instance); it assigns to `exports`, here the validators object.
  const scopes = groups.map(({ ajv, lookup, entries }) => {
    const compile = sharingCompiler(ajv, lookup);
    const ids: Record<string, string> = {};
    // Plain keys: Ajv resolves a reference against the key of the schema holding it, as a URI.
    entries.forEach((entry, i) => {
      ids[entry.name] = `precompiled-${i}`;
      compile(entry.schema, ids[entry.name]);
      hashes[entry.name] = entry.hash;
    });
    return `((exports) => {\n${standaloneCode(ajv, ids)}\n})(validators);`;
  });
  // A factory of the validators, given the `require` their code calls for Ajv's runtime and the
  // formats: the loader's, so they resolve where agentd's own modules do, wherever the file is.
  const code = `"use strict";\nmodule.exports = (require) => {\nconst validators = {};\n${scopes.join('\n')}\nreturn { validators, hashes: ${JSON.stringify(hashes)} };\n};\n`;
  // V8 keeps a script's source as one byte a character only if all of it is Latin-1; outside
  // strings and patterns Ajv's code is ASCII, and inside them \u escapes mean the same.
  return code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
