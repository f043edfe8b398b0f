// Compiles schemas so that each large subschema becomes one validator function per Ajv instance,
// called wherever it appears, instead of being generated again at every place it appears. TypeBox
// builds a schema by copying its parts in: the start-conversation body repeated the hook matcher 24
// times and the agent's parts several times, and Ajv generated ~370 KB of code for it, blocking the
// event loop for a large part of a second. The event unions share their variants the same way.
//
// What a validator accepts, rejects, reports and fills in stays Ajv's answer for the schema as
// written. References ($ref to a named schema) are replaced by the schema they name; nested $ids
// are dropped (the names are only for the OpenAPI document). One thing needs care: Ajv fills in
// `default`s only outside anyOf/oneOf/not/if (its "composite rule"), but a separately compiled
// function starts outside one. So a subschema met inside one loses its `default`s first (they were
// ignored there), and the result is told apart from the same subschema met outside.
import type { Ajv, ValidateFunction } from 'ajv';

type Node = Record<string, unknown>;

/** Subschemas at least this large (in schema members, nested ones counted) get a function of their own. */
const MIN_MEMBERS = 10;

/** Keywords holding one subschema, a list of them or a map of them, and whether Ajv applies them inside a composite rule. */
const ONE: Record<string, boolean> = {
  additionalProperties: false,
  additionalItems: false,
  // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword here.
  then: false,
  else: false,
  not: true,
  if: true,
  contains: true,
  propertyNames: true,
};
const LIST: Record<string, boolean> = { allOf: false, prefixItems: false, anyOf: true };
const MAP: Record<string, boolean> = { properties: false, patternProperties: false, dependentSchemas: false };
/** Keywords this compiler does not rewrite (none of agentd's schemas uses them). */
const UNSUPPORTED = [
  '$defs',
  'definitions',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
];
/** Members a `$ref` may have beside it (annotations; `default` is read by the parent's `properties`). */
const REF_SIBLINGS = new Set(['$ref', 'default', 'title', 'description', 'examples', '$comment']);

interface Rewritten {
  schema: unknown;
  members: number;
}

/**
 * A compile function over `ajv` that shares large subschemas. `lookup` names the schemas a `$ref`
 * may point to (by $id); an unknown or recursive reference is an error at compile time.
 */
export function sharingCompiler(
  ajv: Ajv,
  lookup: (id: string) => object | undefined = () => undefined,
): (schema: object, key?: string) => ValidateFunction {
  const names = new Map<string, string>();

  function share(body: Node): Node {
    const text = JSON.stringify(body);
    let name = names.get(text);
    if (!name) {
      name = `shared-${names.size}`;
      ajv.addSchema(body, name, undefined, false);
      names.set(text, name);
    }
    return { $ref: name };
  }

  /** The node as Ajv should see it, without its own `default` (the caller decides on that). */
  function body(node: Node, composite: boolean, resolving: string[]): Rewritten {
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const extra = Object.keys(node).find((key) => !REF_SIBLINGS.has(key));
      if (extra) throw new Error(`schema compiler: "${extra}" beside $ref "${ref}" is not supported`);
      if (resolving.includes(ref))
        throw new Error(`schema compiler: recursive schema "${ref}" is not supported`);
      const target = lookup(ref);
      if (!target) throw new Error(`schema compiler: unknown schema "${ref}"`);
      return body(target as Node, composite, [...resolving, ref]);
    }
    const out: Node = {};
    let members = 1;
    for (const [key, value] of Object.entries(node)) {
      if (UNSUPPORTED.includes(key)) throw new Error(`schema compiler: "${key}" is not supported`);
      if (key === '$id' || key === 'default') continue;
      members += 1;
      let rewritten: Rewritten;
      if (key in ONE && isSchema(value)) {
        rewritten = child(value, composite || ONE[key] === true, resolving);
      } else if (key === 'items' && isSchema(value)) {
        rewritten = child(value, composite, resolving);
      } else if ((key in LIST || key === 'items' || key === 'oneOf') && Array.isArray(value)) {
        // oneOf under a discriminator is not a composite rule: Ajv applies the chosen variant alone.
        const inside =
          key === 'oneOf' ? composite || node.discriminator === undefined : composite || LIST[key] === true;
        rewritten = list(value, inside, resolving);
      } else if (key in MAP && value !== null && typeof value === 'object') {
        rewritten = map(value as Node, composite || MAP[key] === true, resolving);
      } else {
        rewritten = { schema: value, members: 0 };
      }
      out[key] = rewritten.schema;
      members += rewritten.members;
    }
    return { schema: out, members };
  }

  function child(node: unknown, composite: boolean, resolving: string[]): Rewritten {
    if (!isSchema(node)) return { schema: node, members: 1 };
    const inner = body(node, composite, resolving);
    let schema = inner.schema as Node;
    if (inner.members >= MIN_MEMBERS) schema = share(schema);
    // Ajv ignores defaults inside a composite rule; outside one the parent's `properties` reads it here.
    if (!composite && node.default !== undefined) schema = { ...schema, default: node.default };
    return { schema, members: inner.members };
  }

  function list(values: unknown[], composite: boolean, resolving: string[]): Rewritten {
    const parts = values.map((value) => child(value, composite, resolving));
    return { schema: parts.map((p) => p.schema), members: parts.reduce((n, p) => n + p.members, 0) };
  }

  function map(values: Node, composite: boolean, resolving: string[]): Rewritten {
    const out: Node = {};
    let members = 0;
    for (const [key, value] of Object.entries(values)) {
      const part = child(value, composite, resolving);
      out[key] = part.schema;
      members += part.members;
    }
    return { schema: out, members };
  }

  // Not checked against the meta-schema (agentd's own schemas; compiling the meta-schema cost ~28 KB
  // of code and some ms per Ajv instance): test/events/shared-subschemas.test.ts checks them.
  let roots = 0;
  // `key`: the name the root is added to `ajv` under (standalone code exports it by that name).
  return (schema, key = `root-${roots++}`) => {
    ajv.addSchema(body(schema as Node, false, []).schema as object, key, undefined, false);
    return ajv.getSchema(key) as ValidateFunction;
  };
}

function isSchema(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
