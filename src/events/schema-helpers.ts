// Small builders over TypeBox for the shapes the catalogue repeats: nullable members, closed objects,
// `kind`-discriminated unions (oneOf + discriminator, which gives one precise error and keeps
// defaults working inside the chosen variant) and two-way unions chosen by a tag (if/then/else).
import { type Static, type TObject, type TProperties, type TSchema, Type } from 'typebox';

/**
 * A member that may be null. Scalars get `type: [t, 'null']` (one clean error); others `anyOf`. An
 * `enum` lists null too, or the type would allow null while the enum still refused it.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    const values = (schema as { enum?: unknown[] }).enum;
    return Type.Unsafe<Static<T> | null>({
      ...schema,
      type: [type, 'null'],
      ...(values ? { enum: [...values, null] } : {}),
    });
  }
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
}

/** An object that rejects unknown members. */
export function Closed<P extends TProperties>(
  properties: P,
  options: Record<string, unknown> = {},
): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** A union chosen by `kind`; with `nullable` the value may also be null. */
export function KindUnion<T extends TSchema[]>(
  title: string,
  variants: [...T],
  options: { nullable?: boolean; $id?: string; description?: string } = {},
) {
  return Type.Unsafe<Static<T[number]>>({
    title,
    ...(options.$id ? { $id: options.$id } : {}),
    ...(options.description ? { description: options.description } : {}),
    type: 'object',
    ...(options.nullable ? { nullable: true } : {}),
    required: ['kind'],
    discriminator: { propertyName: 'kind' },
    oneOf: variants,
  });
}

/** A two-way union chosen by the `type` tag: `tag` selects `whenTag`, anything else is `otherwise`. */
export function TagUnion<A extends TSchema, B extends TSchema>(tag: string, whenTag: A, otherwise: B) {
  return Type.Unsafe<Static<A> | Static<B>>({
    if: { type: 'object', properties: { type: { const: tag } }, required: ['type'] },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the JSON Schema keyword here.
    then: whenTag,
    else: otherwise,
  });
}
