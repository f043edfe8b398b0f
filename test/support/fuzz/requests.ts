// Request arbitraries for one operation: valid requests generated from its documented schemas, and
// mutated ones (a wrong type, a missing or extra member, a huge string, deep nesting, odd text, a
// malformed or mis-typed body, a bad path parameter, a bad or oversized query).
import fc from 'fast-check';
import { DEEP_MARKER, encode, multipartBody, type Operation, type RequestParts } from './operations.js';
import { arbitraryFor, type Components } from './schema-arbitrary.js';

export interface FuzzContext {
  components: Components;
  /** Existing ids by path parameter name, so valid requests reach real resources as well as unknown ones. */
  knownIds: Record<string, string[]>;
  /** Keeps a body safe to send in a loop (scripted LLM, temp workspace, no hooks); runs after mutation too. */
  sanitize(op: Operation, body: unknown): unknown;
  /** Keeps query values safe the same way (file paths inside a temp folder); runs after mutation too. */
  sanitizeQuery?(op: Operation, query: Record<string, unknown>): Record<string, unknown>;
}

const withSafeQuery = <T extends RequestParts>(op: Operation, ctx: FuzzContext, parts: T): T =>
  ctx.sanitizeQuery ? { ...parts, query: ctx.sanitizeQuery(op, { ...parts.query }) } : parts;

export type Mutated = RequestParts & { mutation: string };

export function validParts(op: Operation, ctx: FuzzContext): fc.Arbitrary<RequestParts> {
  const path: Record<string, fc.Arbitrary<string>> = {};
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredQuery: string[] = [];
  for (const p of op.parameters) {
    const generated = arbitraryFor(p.schema, ctx.components);
    if (p.in === 'path') {
      const fresh = generated.map((v) => encode(String(v)));
      const known = ctx.knownIds[p.name] ?? [];
      path[p.name] = known.length > 0 ? fc.oneof(fc.constantFrom(...known), fresh) : fresh;
    } else if (p.in === 'query') {
      query[p.name] = generated;
      if (p.required) requiredQuery.push(p.name);
    }
  }
  const body: fc.Arbitrary<RequestParts['body']> = op.body
    ? arbitraryFor(op.body.schema, ctx.components).map((value) => ({
        kind: 'json' as const,
        value: ctx.sanitize(op, value),
      }))
    : fc.constant({ kind: 'none' as const });
  const withOptionalBody = op.multipart
    ? fileBodies(op.multipart.files)
    : op.body && !op.body.required
      ? fc.oneof(body, fc.constant({ kind: 'none' as const }))
      : body;
  return fc
    .record({
      path: fc.record(path),
      query: fc.record(query, { requiredKeys: requiredQuery }),
      body: withOptionalBody,
    })
    .map((parts) => withSafeQuery(op, ctx, parts));
}

/** Multipart bodies: random bytes in every file field (all of them, or one left out). */
function fileBodies(fields: string[]): fc.Arbitrary<RequestParts['body']> {
  return fc
    .tuple(
      fc.array(fc.uint8Array({ maxLength: 4096 }), { minLength: fields.length, maxLength: fields.length }),
      fc.nat(),
    )
    .map(([contents, n]) => {
      const files = Object.fromEntries(fields.map((f, i) => [f, contents[i]!]));
      // Now and then a field is missing (a 422).
      if (n % 8 === 0 && fields.length > 0) delete files[fields[n % fields.length]!];
      return { kind: 'raw' as const, ...multipartBody(files) };
    });
}

type Step = string | number;

/** Every position in a JSON value (the root is []), containers before their members. */
function positions(value: unknown, at: Step[] = [], out: Step[][] = []): Step[][] {
  out.push(at);
  if (out.length > 400) return out;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) positions(v, [...at, i], out);
  } else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) positions(v, [...at, k], out);
  return out;
}

function setAt(value: unknown, at: Step[], replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const copy = structuredClone(value) as Record<Step, unknown>;
  let node = copy;
  for (const step of at.slice(0, -1)) node = node[step] as Record<Step, unknown>;
  node[at[at.length - 1]!] = replacement;
  return copy;
}

function objectPositions(value: unknown): Step[][] {
  return positions(value).filter((at) => {
    const node = at.reduce<unknown>((v, s) => (v as Record<Step, unknown>)[s], value);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
}

const nodeOf = (value: unknown, at: Step[]) =>
  at.reduce<unknown>((v, s) => (v as Record<Step, unknown>)[s], value) as Record<string, unknown>;

/** Values of the wrong type, or of the right type at the edges (huge, negative, fractional numbers). */
const WRONG_TYPES = fc.constantFrom<unknown>(
  12345,
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  'fuzz',
  true,
  null,
  [],
  {},
  [1, 'a'],
  { a: 1 },
);
const ODD_TEXT = fc.constantFrom('', ' ', '\u0000', '\ud800', '\u202e', '🙂'.repeat(50), 'null', '%00', '\\');
const HUGE = fc.constantFrom(70_000, 1_500_000).map((n) => 'x'.repeat(n));
/** Depths either side of the documented limit (64) and far past a recursive parser's stack. */
const DEPTHS = fc.constantFrom(30, 65, 5_000, 100_000);

/** The text with an encoded UTF-16 surrogate (bytes no UTF-8 decoder accepts) inside its first string. */
function withInvalidUtf8(text: string): Buffer {
  const at = text.indexOf('"') + 1;
  return Buffer.concat([
    Buffer.from(text.slice(0, at)),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from(text.slice(at)),
  ]);
}

function bodyMutations(op: Operation, parts: RequestParts, ctx: FuzzContext): fc.Arbitrary<Mutated>[] {
  const base = parts.body.kind === 'json' ? parts.body.value : {};
  const all = positions(base);
  const objects = objectPositions(base);
  const pick = <T>(list: T[]) => fc.nat({ max: list.length - 1 }).map((i) => list[i]!);
  const withBody = (mutation: string, value: unknown, deep?: number): Mutated => ({
    ...parts,
    body: { kind: 'json', value: ctx.sanitize(op, value), deep },
    mutation,
  });
  const raw = (mutation: string, bytes: Buffer, contentType = 'application/json'): Mutated => ({
    ...parts,
    body: { kind: 'raw', bytes, contentType },
    mutation,
  });
  const text = JSON.stringify(base) ?? '{}';
  const list: fc.Arbitrary<Mutated>[] = [
    fc
      .tuple(pick(all), WRONG_TYPES)
      .map(([at, v]) => withBody(`wrong type at /${at.join('/')}`, setAt(base, at, v))),
    fc
      .tuple(pick(all), HUGE)
      .map(([at, v]) => withBody(`huge string at /${at.join('/')}`, setAt(base, at, v))),
    fc
      .tuple(pick(all), ODD_TEXT)
      .map(([at, v]) => withBody(`odd text at /${at.join('/')}`, setAt(base, at, v))),
    fc
      .tuple(pick(all), DEPTHS)
      .map(([at, depth]) =>
        withBody(`nested ${depth} deep at /${at.join('/')}`, setAt(base, at, DEEP_MARKER), depth),
      ),
    fc.constantFrom(
      raw('truncated JSON', Buffer.from(text.slice(0, Math.max(1, text.length - 1)))),
      raw(
        'invalid UTF-8',
        Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]),
      ),
      raw('invalid UTF-8 in a valid body', withInvalidUtf8(text)),
      raw('text/plain body', Buffer.from(text), 'text/plain'),
      raw('unknown media type', Buffer.from(text), 'application/x-fuzz'),
      raw('JSON with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
      raw('bare number', Buffer.from('1e999')),
      { ...parts, body: { kind: 'none' }, mutation: 'no body' } as Mutated,
    ),
  ];
  if (objects.length > 0) {
    list.push(
      fc.tuple(pick(objects), fc.nat()).map(([at, n]) => {
        const node = nodeOf(base, at);
        const keys = Object.keys(node);
        if (keys.length === 0) return withBody('empty object kept', base);
        const key = keys[n % keys.length]!;
        const { [key]: _dropped, ...rest } = node;
        return withBody(`member ${key} dropped at /${at.join('/')}`, setAt(base, at, rest));
      }),
      fc
        .tuple(
          pick(objects),
          fc.constantFrom('fuzz_extra_member', '__proto__', 'constructor'),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([at, name, v]) => {
          const node = nodeOf(base, at);
          // A computed key defines an own member, even `__proto__`; JSON.stringify writes it out.
          const member = name === 'constructor' ? { prototype: v } : v;
          return withBody(
            `extra member ${name} at /${at.join('/')}`,
            setAt(base, at, { ...node, [name]: member }),
          );
        }),
      // Deep nesting where the schema does not look inside (open objects, maps of unknown values).
      fc.tuple(pick(objects), DEPTHS).map(([at, depth]) => {
        const node = nodeOf(base, at);
        return withBody(
          `extra member nested ${depth} deep at /${at.join('/')}`,
          setAt(base, at, { ...node, fuzz_deep_member: DEEP_MARKER }),
          depth,
        );
      }),
    );
  }
  return list;
}

const BAD_PATH_VALUES = fc.constantFrom(
  '%E0%A4%A',
  '%ZZ',
  '%00',
  'x'.repeat(600),
  '..',
  '%2e%2e',
  '%2F',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '%F0%9F%99%82',
);

function pathMutations(op: Operation, parts: RequestParts): fc.Arbitrary<Mutated>[] {
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.length === 0) return [];
  return [
    fc.tuple(fc.constantFrom(...names), fc.oneof(BAD_PATH_VALUES, fc.uuid())).map(([name, v]) => ({
      ...parts,
      path: { ...parts.path, [name]: v },
      mutation: `path ${name}=${v.slice(0, 40)}`,
    })),
  ];
}

function queryMutations(op: Operation, parts: RequestParts): fc.Arbitrary<Mutated>[] {
  const names = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const list: fc.Arbitrary<Mutated>[] = [
    fc.constantFrom(
      { ...parts, rawQuery: 'fuzz_unknown=1', mutation: 'unknown query parameter' },
      { ...parts, rawQuery: `q=${'x'.repeat(20_000)}`, mutation: 'query past the header limit' },
      { ...parts, rawQuery: '%E0%A4%A=1&a=%ZZ', mutation: 'malformed query escapes' },
    ),
  ];
  if (names.length > 0) {
    const values = fc.oneof(
      WRONG_TYPES.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
      ODD_TEXT,
      fc.constant('x'.repeat(5_000)),
    );
    list.push(
      fc.tuple(fc.constantFrom(...names), values).map(([name, v]) => ({
        ...parts,
        query: { ...parts.query, [name]: v },
        mutation: `query ${name}=${JSON.stringify(v).slice(0, 40)}`,
      })),
      fc.constantFrom(...names).map((name) => {
        const { [name]: _dropped, ...rest } = parts.query;
        return { ...parts, query: rest, mutation: `query ${name} dropped` };
      }),
    );
  }
  return list;
}

export function mutatedParts(op: Operation, ctx: FuzzContext): fc.Arbitrary<Mutated> {
  return validParts(op, ctx).chain((parts) =>
    fc
      .oneof(...bodyMutations(op, parts, ctx), ...pathMutations(op, parts), ...queryMutations(op, parts))
      .map((mutated) => withSafeQuery(op, ctx, mutated)),
  );
}
