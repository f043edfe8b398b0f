// The validators built with agentd (events/precompiled.ts, written by server/precompile.ts at build
// time): they answer exactly what the server's own compile answers (result, errors, defaults filled
// in), the build's file is the one a serving app (control plane included) finds for its first
// routes, and a schema that changed since the build is compiled as before.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAjv,
  issuesFromAjv,
  MessageEvent,
  PRECOMPILED_EVENTS,
  precompiledValidator,
  schemaHash,
  sharingCompiler,
  usePrecompiledFile,
} from '../../src/events/index.js';
import { writePrecompiledValidators } from '../../src/server/precompile.js';
import { AJV_OPTIONS, optionsKind, routeSchemas, validatorName } from '../../src/server/validation.js';
import { FIRST_ROUTES } from '../../src/server/warm-up.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const lookupOf = (app: TestServer['app']) => {
  const shared = app.getSchemas() as Record<string, object>;
  return (id: string) => shared[id];
};

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  usePrecompiledFile();
  await server.close({ remove: true });
});

const text = (t: string) => [{ type: 'text', text: t }];
const llm = { model: 'openai/m', api_key: 'sk-x', base_url: 'http://127.0.0.1:9/v1' };
// Bodies of each first route, good and bad: every kind of answer a validator gives.
const SAMPLES: Record<string, unknown[]> = {
  'POST /api/conversations': [
    { workspace: { working_dir: '/tmp/w' } },
    {
      agent: { llm, tools: [{ name: 'terminal' }], kind: 'Agent' },
      workspace: { working_dir: '/tmp/w' },
      initial_message: { role: 'user', content: text('hi'), run: true },
      confirmation_policy: { kind: 'AlwaysConfirm' },
      max_iterations: 5,
      tags: { a: 'b' },
    },
    { agent: { llm: { ...llm, temperature: 'hot' } }, workspace: { working_dir: '/tmp/w' } },
    { workspace: {}, surprise: true },
    { workspace: { working_dir: '/tmp/w' }, initial_message: { role: 'robot', content: 'x' } },
    { workspace: { working_dir: 7 }, max_iterations: -1, confirmation_policy: { kind: 'Nope' } },
    [],
    null,
  ],
  'POST /api/conversations/:conversation_id/events': [
    { role: 'user', content: text('hello') },
    { role: 'user', content: text('hello'), run: true, extended_content: text('more') },
    { role: 'user', content: [{ type: 'image', image_urls: ['data:image/png;base64,AA=='] }] },
    { role: 'user', content: [{ type: 'text' }] },
    { content: text('no role') },
    { role: 'user', content: text('x'), extra: 1 },
    'hello',
  ],
};
const PARAMS = [{ conversation_id: randomUUID() }, { conversation_id: 'not-an-id' }, {}];
const EVENTS = [
  {
    kind: 'MessageEvent',
    id: randomUUID(),
    timestamp: '2026-01-01T00:00:00',
    source: 'user',
    llm_message: { role: 'user', content: text('hi') },
  },
  { kind: 'MessageEvent', source: 'robot', llm_message: { role: 'user' } },
];

/** What a validator answers for a copy of `data`: its result, its issues, and the data after it. */
function answer(validate: ReturnType<ReturnType<typeof sharingCompiler>>, data: unknown) {
  const copy = structuredClone(data);
  const ok = validate(copy);
  return { ok, issues: issuesFromAjv(validate.errors), data: copy };
}

describe('validators built with agentd', () => {
  it('answer as the compiled ones do, for the first routes and the user message', async () => {
    const file = join(tempDir('agentd-precompiled-'), 'validators.cjs');
    await writePrecompiledValidators(file);
    usePrecompiledFile(file);
    const lookup = lookupOf(server.app);
    const compilers = {
      strict: sharingCompiler(createAjv(AJV_OPTIONS.strict), lookup),
      coercing: sharingCompiler(createAjv(AJV_OPTIONS.coercing), lookup),
    };
    const outcomes = new Set<boolean>();
    for (const route of FIRST_ROUTES) {
      for (const { part, schema } of routeSchemas(server.app, route)) {
        const name = validatorName(route, part);
        const built = precompiledValidator(name, () => schemaHash(schema, lookup));
        expect(built, name).not.toBeNull();
        const compiled = compilers[optionsKind(part)](schema);
        for (const data of part === 'body' ? (SAMPLES[route] ?? []) : PARAMS) {
          const got = answer(built!, data);
          expect(got, `${name} ${JSON.stringify(data)}`).toEqual(answer(compiled, data));
          outcomes.add(got.ok);
        }
      }
    }
    const message = precompiledValidator(PRECOMPILED_EVENTS.get(MessageEvent)!, () =>
      schemaHash(MessageEvent),
    );
    expect(message).not.toBeNull();
    const compiledMessage = sharingCompiler(createAjv())(MessageEvent);
    for (const event of EVENTS) {
      const got = answer(message!, event);
      expect(got).toEqual(answer(compiledMessage, event));
      outcomes.add(got.ok);
    }
    // Both kinds of answer were compared: some samples pass, some fail.
    expect(outcomes).toEqual(new Set([true, false]));
  });

  it('are the build’s own for a serving app, and not for a schema changed since', () => {
    usePrecompiledFile(fileURLToPath(new URL('../../dist/validators.cjs', import.meta.url)));
    const lookup = lookupOf(server.app);
    for (const route of FIRST_ROUTES) {
      for (const { part, schema } of routeSchemas(server.app, route)) {
        expect(
          precompiledValidator(validatorName(route, part), () => schemaHash(schema, lookup)),
          `${route} ${part}`,
        ).not.toBeNull();
        const changed = { ...schema, description: 'changed since the build' };
        expect(
          precompiledValidator(validatorName(route, part), () => schemaHash(changed, lookup)),
        ).toBeNull();
      }
    }
    // A shared schema it names that changed is a change too.
    const [route] = FIRST_ROUTES;
    const body = routeSchemas(server.app, route!).find((p) => p.part === 'body')!.schema as { $ref: string };
    const changedShared = (id: string) =>
      id === body.$ref ? { ...lookup(id), title: 'changed' } : lookup(id);
    expect(
      precompiledValidator(validatorName(route!, 'body'), () => schemaHash(body, changedShared)),
    ).toBeNull();
  });

  it('are none when the file does not load (a build that failed half-way): the server compiles', () => {
    const file = join(tempDir('agentd-precompiled-'), 'validators.cjs');
    writeFileSync(file, 'module.exports = (require) => { const validators = {');
    usePrecompiledFile(file);
    const [route] = FIRST_ROUTES;
    const body = routeSchemas(server.app, route!).find((p) => p.part === 'body')!.schema;
    expect(
      precompiledValidator(validatorName(route!, 'body'), () => schemaHash(body, lookupOf(server.app))),
    ).toBeNull();
  });
});
