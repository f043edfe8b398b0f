// fast-check arbitraries from the JSON Schema subset agentd's OpenAPI document uses: $ref to
// components/schemas, anyOf/oneOf, enum/const, type (one or a list), string length, pattern and
// format, number bounds, array items and sizes, object properties/required/additionalProperties.
// if/then/else is ignored: a value it would reject is a 422, which the fuzz accepts as an answer.
import fc from 'fast-check';

export type JsonSchema = Record<string, unknown>;
export type Components = Record<string, JsonSchema>;

/** Beyond this depth of $refs and containers only required members and empty arrays are generated. */
const MAX_DEPTH = 4;

const REF_PREFIX = '#/components/schemas/';

export function resolveRef(schema: JsonSchema, components: Components): JsonSchema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    const ref = current.$ref as string;
    const target = ref.startsWith(REF_PREFIX) ? components[ref.slice(REF_PREFIX.length)] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    current = target;
  }
  return current;
}

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  'date-time': () =>
    fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  'iso-date-time': () => FORMATS['date-time']!(),
  uuid: () => fc.uuid(),
  uri: () => fc.webUrl(),
};

/** Shapes of text worth generating whenever a pattern accepts their sample. */
const SHAPES: Record<string, { sample: string; arbitrary: () => fc.Arbitrary<string> }> = {
  dateTime: { sample: '2024-01-02T03:04:05.678Z', arbitrary: () => FORMATS['date-time']!() },
  date: { sample: '2024-01-02', arbitrary: () => FORMATS['date-time']!().map((d) => d.slice(0, 10)) },
  uuid: { sample: '0b7e1f5c-9d4a-4c7e-8f00-000000000001', arbitrary: () => fc.uuid() },
  hexUuid: {
    sample: '0b7e1f5c9d4a4c7e8f00000000000001',
    arbitrary: () => fc.uuid().map((u) => u.replaceAll('-', '')),
  },
};

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) return format();
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength =
    typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, minLength + 40) : minLength + 40;
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern);
    const fits = (s: string) =>
      s.length >= minLength && s.length <= ((schema.maxLength as number | undefined) ?? Infinity);
    // Random text matching a pattern is rarely meaningful (a datetime pattern gives month 47): the
    // common shapes the pattern accepts are tried too, so valid requests reach past the handler's checks.
    const shapes = Object.values(SHAPES).filter((shape) => pattern.test(shape.sample) && fits(shape.sample));
    const matching = fc.stringMatching(pattern).filter(fits);
    return shapes.length === 0 ? matching : fc.oneof(matching, ...shapes.map((shape) => shape.arbitrary()));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const bound = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  let min = bound('minimum');
  let max = bound('maximum');
  const exclusiveMin = bound('exclusiveMinimum');
  const exclusiveMax = bound('exclusiveMaximum');
  if (integer) {
    if (exclusiveMin !== undefined) min = Math.floor(exclusiveMin) + 1;
    if (exclusiveMax !== undefined) max = Math.ceil(exclusiveMax) - 1;
    return fc.integer({ min: min ?? -1_000_000, max: max ?? 1_000_000 });
  }
  return fc
    .double({
      min: min ?? exclusiveMin ?? -1e6,
      max: max ?? exclusiveMax ?? 1e6,
      noNaN: true,
      noDefaultInfinity: true,
    })
    .filter(
      (n) =>
        (exclusiveMin === undefined || n > exclusiveMin) && (exclusiveMax === undefined || n < exclusiveMax),
    );
}

function objectArbitrary(schema: JsonSchema, components: Components, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, member] of Object.entries(properties)) {
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    model[name] = arbitraryFor(member, components, depth + 1);
  }
  const known = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length > 0 || extra === undefined || extra === false || depth >= MAX_DEPTH) {
    return known;
  }
  // A map (Record<string, T>): a few entries of the member schema.
  const values =
    extra === true ? fc.jsonValue({ maxDepth: 1 }) : arbitraryFor(extra as JsonSchema, components, depth + 1);
  const names = schema.propertyNames as JsonSchema | undefined;
  const keys = names
    ? stringArbitrary({ minLength: 1, maxLength: 12, ...names })
    : fc.string({ minLength: 1, maxLength: 12 });
  return fc.dictionary(keys, values, { maxKeys: 3 });
}

function arrayArbitrary(schema: JsonSchema, components: Components, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const cap = depth >= MAX_DEPTH ? minLength : minLength + 3;
  const maxLength = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, cap) : cap;
  const items = schema.items
    ? arbitraryFor(schema.items as JsonSchema, components, depth + 1)
    : fc.jsonValue({ maxDepth: 1 });
  return fc.array(items, { minLength, maxLength });
}

function typedArbitrary(
  type: string,
  schema: JsonSchema,
  components: Components,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(schema, components, depth);
    case 'object':
      return objectArbitrary(schema, components, depth);
    default:
      throw new Error(`unsupported type ${type}`);
  }
}

/** An arbitrary of values the schema accepts (up to if/then/else). */
export function arbitraryFor(schema: JsonSchema, components: Components, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveRef(schema, components);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((a) => arbitraryFor(a, components, depth)));
  if (Array.isArray(s.type))
    return fc.oneof(...s.type.map((t: string) => typedArbitrary(t, s, components, depth)));
  if (typeof s.type === 'string') return typedArbitrary(s.type, s, components, depth);
  if (s.properties) return objectArbitrary(s, components, depth);
  return fc.jsonValue({ maxDepth: 2 });
}
