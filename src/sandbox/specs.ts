// Sandbox specs: the presets sandboxes start from. The built-in `process` spec runs `agentd agent`
// with the workspace at `workspace/` in the sandbox's folder; more presets (other environment
// variables or working folders) come from JSON (the CLI reads AGENTD_SANDBOX_SPECS: the list itself,
// or the path of a file holding it).
import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { parse } from '../events/index.js';
import { UnknownCursorError } from '../store/index.js';
import type { SandboxSpecInfo } from './schemas.js';
import { SandboxSpecNotFoundError } from './types.js';

export const DEFAULT_SPEC_ID = 'process';

const SpecPreset = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9._:/-]+$' }),
    initial_env: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String()),
    ),
    working_dir: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
const SpecPresets = Type.Array(SpecPreset);

export class SpecConfigError extends Error {
  override name = 'SpecConfigError';
}

export class SandboxSpecs {
  readonly specs: readonly SandboxSpecInfo[];

  constructor(
    presets: readonly { id: string; initial_env?: Record<string, string>; working_dir?: string }[] = [],
  ) {
    const createdAt = new Date().toISOString();
    const all = [{ id: DEFAULT_SPEC_ID }, ...presets].map((p) => ({
      id: p.id,
      command: ['agentd', 'agent'],
      created_at: createdAt,
      initial_env: p.initial_env ?? {},
      working_dir: p.working_dir ?? 'workspace',
    }));
    const ids = new Set<string>();
    for (const spec of all) {
      if (ids.has(spec.id)) throw new SpecConfigError(`Sandbox spec id given twice: ${spec.id}`);
      ids.add(spec.id);
    }
    this.specs = all;
  }

  /** Presets from JSON text: a list of {id, initial_env?, working_dir?} (AGENTD_SANDBOX_SPECS). */
  static fromJson(text: string): SandboxSpecs {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SpecConfigError(`not valid JSON: ${(error as Error).message}`);
    }
    const parsed = parse(SpecPresets, json);
    if (!parsed.ok) {
      const issue = parsed.errors[0]!;
      throw new SpecConfigError(`${issue.loc.join('.')}: ${issue.msg}`);
    }
    return new SandboxSpecs(parsed.value);
  }

  /** Presets from a JSON file holding that list. */
  static fromFile(file: string): SandboxSpecs {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SpecConfigError(`cannot read ${file}: ${(error as Error).message}`);
    }
    try {
      return SandboxSpecs.fromJson(text);
    } catch (error) {
      if (error instanceof SpecConfigError) throw new SpecConfigError(`${file}: ${error.message}`);
      throw error;
    }
  }

  get(id: string | null | undefined): SandboxSpecInfo {
    const spec = this.specs.find((s) => s.id === (id ?? DEFAULT_SPEC_ID));
    if (!spec) throw new SandboxSpecNotFoundError(id ?? DEFAULT_SPEC_ID);
    return spec;
  }

  getMany(ids: readonly string[]): (SandboxSpecInfo | null)[] {
    return ids.map((id) => this.specs.find((s) => s.id === id) ?? null);
  }

  /** Integer-offset pages, as OpenHands pages its preset list. */
  page(pageId: string | undefined, limit: number): { items: SandboxSpecInfo[]; next_page_id: string | null } {
    const start = pageId === undefined ? 0 : Number(pageId);
    if (!Number.isInteger(start) || start < 0) throw new UnknownCursorError(pageId!);
    const items = this.specs.slice(start, start + limit);
    return { items, next_page_id: start + limit < this.specs.length ? String(start + limit) : null };
  }
}
