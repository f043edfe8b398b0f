// Where Fastify keeps the schemas added with app.addSchema (agentd's shared schemas: the event union,
// settings, conversations…), one bucket per plugin scope holding its parent's. Fastify's own bucket
// deep-copies each schema as it is added, to guard against a caller changing it afterwards: ~50
// schemas, the event union among them (installOpenApi 4.5 -> 1.4 ms in a start's profile, means of
// 5 starts, without the copy). agentd's are module constants that nothing changes, and what reads
// them copies what it would change (@fastify/swagger's resolver).
import type { FastifyServerOptions } from 'fastify';

type Bucket = ReturnType<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['bucket']>>;

/** Fastify's `schemaController.bucket`: a scope's schemas by `$id`, its parent's included. */
export function schemaBucket(parentSchemas: unknown = {}): Bucket {
  const store: Record<string, unknown> = { ...(parentSchemas as Record<string, unknown>) };
  const bucket = {
    add(schema: unknown): void {
      const id = (schema as { $id?: unknown }).$id;
      if (typeof id !== 'string' || id === '') throw new Error('a shared schema needs an $id');
      if (id in store) throw new Error(`a schema with $id ${id} is already there`);
      store[id] = schema;
    },
    getSchema: (id: string) => store[id],
    getSchemas: () => ({ ...store }),
  };
  // Fastify's type has add answer the instance; Fastify ignores it (addSchema answers the instance).
  return bucket as unknown as Bucket;
}
