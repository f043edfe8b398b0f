// sharingCompiler against Ajv's plain compile of the same schemas (references inlined by Ajv, the
// shared schemas added as they are): for every shared schema of the API and the event unions, on
// generated valid values and on mutations of them at every path, both must give the same verdict,
// the same 422 issues, and the same value afterwards (defaults filled in, or not, at the same places).
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AnyEventSchema,
  createAjv,
  EventUnionSchema,
  issuesFromAjv,
  ServerEventSchema,
  sharingCompiler,
} from '../../src/events/index.js';
import { installOpenApi } from '../../src/server/openapi.js';
import { arbitraryFor, type Components } from '../support/fuzz/schema-arbitrary.js';
import { EVENT_CASES } from './fixtures.js';

const app = Fastify();
await installOpenApi(app, { controlPlane: true, docsUi: false });
await app.ready();
afterAll(() => app.close());

const shared = app.getSchemas() as Record<string, object>;
const components = (app.swagger() as unknown as { components: { schemas: Components } }).components.schemas;

const plainAjv = createAjv({ inlineRefs: true });
for (const schema of Object.values(shared)) plainAjv.addSchema(schema, undefined, undefined, false);
const sharing = sharingCompiler(createAjv(), (id) => shared[id]);

const MUTATIONS: ((value: unknown) => unknown)[] = [
  () => undefined, // the member removed
  () => null,
  () => 7,
  () => 'x',
  () => ({ zz_extra: 1 }),
  () => [],
];

type Path = (string | number)[];

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (path.length > 0) out.push(path);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) pathsOf(item, [...path, i], out);
  } else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], out);
  return out;
}

function mutate(value: unknown, path: Path, change: (v: unknown) => unknown): unknown {
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  const next = change(parent[last]);
  if (next === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = next;
  return copy;
}

/** Both validators on copies of `value`: verdict, issues and the value afterwards agree. */
function agree(plain: ValidateFunction, shared: ValidateFunction, value: unknown): boolean {
  const a = structuredClone(value);
  const b = structuredClone(value);
  const okA = plain(a);
  const okB = shared(b);
  expect(okB).toBe(okA);
  expect(issuesFromAjv(shared.errors)).toEqual(issuesFromAjv(plain.errors));
  expect(b).toEqual(a);
  return okA;
}

/** Values to try: each sample, then every path of it changed each way. */
function check(plain: ValidateFunction, shared: ValidateFunction, samples: unknown[]): number {
  let valid = 0;
  for (const sample of samples) {
    if (agree(plain, shared, sample)) valid += 1;
    for (const path of pathsOf(sample).slice(0, 40))
      for (const change of MUTATIONS) agree(plain, shared, mutate(sample, path, change));
  }
  return valid;
}

describe('sharingCompiler', () => {
  it('agrees with plain Ajv on every shared schema of the API', () => {
    const names = Object.keys(shared);
    expect(names).toContain('StartConversationRequest');
    // sharingCompiler skips Ajv's meta-schema check; it is done here.
    for (const schema of [...Object.values(shared), AnyEventSchema]) {
      expect(plainAjv.validateSchema(schema), JSON.stringify(plainAjv.errors)).toBe(true);
    }
    for (const name of names) {
      const samples = fc.sample(arbitraryFor({ $ref: `#/components/schemas/${name}` }, components), {
        numRuns: 6,
        seed: 20261123,
      });
      check(plainAjv.compile({ $ref: name }), sharing({ $ref: name }), samples);
    }
  });

  it('agrees with plain Ajv on the event unions, full and minimal examples of every kind', () => {
    const samples = EVENT_CASES.flatMap((c) => [c.full, c.minimal]);
    for (const union of [EventUnionSchema, AnyEventSchema, ServerEventSchema]) {
      const { $id: _id, ...anonymous } = union as unknown as Record<string, unknown>;
      const valid = check(createAjv({ inlineRefs: true }).compile(anonymous), sharing(union), samples);
      // Not a vacuous agreement: the examples are events of the union.
      expect(valid).toBeGreaterThan(samples.length / 2);
    }
  });

  it('fills in a default inside a shared part only where Ajv does: not inside anyOf', () => {
    const matcher = { hooks: [{ command: 'true' }] };
    const body = {
      workspace: { working_dir: '/tmp' },
      hook_config: { pre_tool_use: [matcher], hooks: { stop: [matcher] } },
    };
    const validate = sharing({ $ref: 'StartConversationRequest' });
    expect(validate(body)).toBe(true);
    // hook_config is Union([HookConfig, Null]): Ajv leaves its members as sent.
    expect(body.hook_config.pre_tool_use[0]).toEqual({ hooks: [{ command: 'true' }] });
    const alone = { pre_tool_use: [{ hooks: [{ command: 'true' }] }] };
    expect(sharing({ $ref: 'HookConfig' })(alone)).toBe(true);
    expect(alone.pre_tool_use[0]).toEqual({
      matcher: '*',
      hooks: [{ type: 'command', command: 'true', timeout: 60 }],
    });
  });

  it('refuses a reference it cannot put in place, at compile time', () => {
    expect(() => sharing({ $ref: 'NoSuchSchema' })).toThrow(/unknown schema "NoSuchSchema"/);
  });
});
