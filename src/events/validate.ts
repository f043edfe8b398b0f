// Validation with the project's Ajv settings: unknown members rejected (never stripped), no type
// coercion for bodies, every error reported, defaults applied, `kind` unions dispatched by their
// discriminator. Issues come out in FastAPI's shape {loc, msg, type}.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from 'typebox';
import { AnyEventSchema, EventUnionSchema, MessageEvent } from './events.js';
import { precompiledValidator, schemaHash } from './precompiled.js';
import { sharingCompiler } from './shared-subschemas.js';

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };
export type ParseResult<V> = { ok: true; value: V } | { ok: false; errors: ValidationIssue[] };

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function createAjv(overrides: Options = {}): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    coerceTypes: false,
    allErrors: true,
    discriminator: true,
    useDefaults: true,
    strict: false,
    // Schemas are compiled through sharingCompiler, whose references are the shared subschemas:
    // each stays one function, called where it is used, rather than being inlined again there.
    inlineRefs: false,
    ...overrides,
    // Without Ajv's optimizing pass over the generated code, a large validator costs about half the
    // resident memory (start-conversation body: ~17 -> ~8 MB) and a third less compile time, and
    // validates no slower (measured ~5 µs per start body either way). (`source`: precompiled.ts.)
    code: { optimize: false, ...overrides.code },
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Ajv errors as FastAPI-style issues. Wrapper errors that only repeat a nested failure (if/then/else,
 * anyOf/oneOf summaries) are dropped when a precise error exists.
 */
export function issuesFromAjv(
  errors: readonly ErrorObject[] | null | undefined,
  prefix: (string | number)[] = [],
): ValidationIssue[] {
  if (!errors) return [];
  const precise = errors.filter((e) => !['if', 'anyOf', 'oneOf'].includes(e.keyword));
  const chosen = precise.length > 0 ? precise : errors;
  return chosen.map((e) => {
    const path = e.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replaceAll('~1', '/').replaceAll('~0', '~')));
    const params = e.params as {
      missingProperty?: string;
      additionalProperty?: string;
      tag?: string;
      allowedValue?: unknown;
    };
    const member =
      params.missingProperty ??
      params.additionalProperty ??
      (e.keyword === 'discriminator' ? params.tag : undefined);
    const loc = [...prefix, ...path, ...(member !== undefined ? [member] : [])];
    const msg =
      e.keyword === 'additionalProperties'
        ? `Extra inputs are not permitted: ${member}`
        : e.keyword === 'const'
          ? `Input should be ${JSON.stringify(params.allowedValue)}`
          : (e.message ?? e.keyword);
    return { loc, msg, type: e.keyword === 'additionalProperties' ? 'extra_forbidden' : e.keyword };
  });
}

// Made on the first compile, not when the bundle loads (an Ajv instance with its formats is ~5 ms):
// the validators a fresh server needs first were built with agentd (precompiled.ts).
let compiler: ReturnType<typeof sharingCompiler> | null = null;
const compile = (schema: TSchema) => {
  compiler ??= sharingCompiler(createAjv());
  return compiler(schema);
};
const compiled = new WeakMap<object, ValidateFunction>();

/** The event schemas built with agentd (precompiled.ts), by the name they are stored under. */
export const PRECOMPILED_EVENTS: ReadonlyMap<TSchema, string> = new Map([
  [MessageEvent, 'event MessageEvent'],
]);

function validatorFor(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const name = PRECOMPILED_EVENTS.get(schema);
    validate = (name && precompiledValidator(name, () => schemaHash(schema))) || compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validates and applies defaults (the value is completed in place). */
export function parse<T extends TSchema>(schema: T, value: unknown): ParseResult<Static<T>> {
  const validate = validatorFor(schema);
  if (validate(value)) return { ok: true, value: value as Static<T> };
  return { ok: false, errors: issuesFromAjv(validate.errors) };
}

export const parseEvent = (value: unknown) => parse(EventUnionSchema, value);

/**
 * A MessageEvent, validated against its own variant: what the union's discriminator would pick,
 * with the same errors and defaults, but ~50 KB of generated code compiled in ~45 ms rather than the
 * whole union's ~520 KB in ~0.27 s (2-core machine), which a server otherwise keeps for its lifetime.
 */
export const parseMessageEvent = (value: unknown) => parse(MessageEvent, value);

/** Compiles the user message validator ahead of use (a server's idle warm-up). */
export function prepareMessageValidator(): void {
  validatorFor(MessageEvent);
}
export const parseAnyEvent = (value: unknown) => parse(AnyEventSchema, value);
