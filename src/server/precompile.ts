// Build step: writes the validators a fresh server would otherwise compile on its first requests
// (the bodies of the first routes, the user message event) as Ajv standalone code, for
// events/precompiled.ts to load. The route schemas are taken from a real app, built as a server
// builds it (in a temporary data folder, never listening), so each is the schema the server's
// validator compiler is handed, and its hash the one the server computes.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAjv,
  PRECOMPILED_EVENTS,
  type PrecompileEntry,
  schemaHash,
  standaloneValidators,
} from '../events/index.js';
import { startAgentd } from './start.js';
import { AJV_OPTIONS, optionsKind, routeSchemas, validatorName } from './validation.js';
import { FIRST_ROUTES } from './warm-up.js';

/** Builds the precompiled validators' module and writes it to `file`. */
export async function writePrecompiledValidators(file: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentd-precompile-'));
  try {
    const agentd = await startAgentd({
      dataDir,
      sessionApiKeys: ['precompile'],
      logger: false,
      controlPlane: false,
      env: {},
    });
    try {
      await agentd.app.ready(); // routes hand their schemas to the validator compiler on ready
      const shared = agentd.app.getSchemas() as Record<string, object>;
      const lookup = (id: string) => shared[id];
      // Each part compiled with the options the server compiles it with (validation.ts); events strict.
      const entries: Record<keyof typeof AJV_OPTIONS, PrecompileEntry[]> = { strict: [], coercing: [] };
      for (const route of FIRST_ROUTES) {
        const parts = routeSchemas(agentd.app, route);
        if (!parts.some(({ part }) => part === 'body')) throw new Error(`precompile: ${route} has no body`);
        for (const { part, schema } of parts)
          entries[optionsKind(part)].push({
            name: validatorName(route, part),
            schema,
            hash: schemaHash(schema, lookup),
          });
      }
      for (const [schema, name] of PRECOMPILED_EVENTS)
        entries.strict.push({ name, schema, hash: schemaHash(schema) });
      const code = standaloneValidators(
        (['strict', 'coercing'] as const).map((kind) => ({
          ajv: createAjv({ ...AJV_OPTIONS[kind], code: { source: true } }),
          lookup,
          entries: entries[kind],
        })),
      );
      // Whole or not at all: a server starting meanwhile reads the old file or the new one.
      writeFileSync(`${file}.tmp`, code);
      renameSync(`${file}.tmp`, file);
    } finally {
      await agentd.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
