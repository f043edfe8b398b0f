// Builds a tool's wire definition and its LLM parameter schema from its Action schema, so the three
// never disagree.
import type { Static, TObject } from 'typebox';
import type { ToolDefinition } from '../events/index.js';

export interface ToolMeta {
  name: string;
  kind: string;
  actionKind: string;
  observationKind: string | null;
  description: string;
  readOnly: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

export function toolDefinition(meta: ToolMeta): Static<typeof ToolDefinition> {
  return {
    description: meta.description,
    action_type: meta.actionKind,
    ...(meta.observationKind ? { observation_type: meta.observationKind } : {}),
    annotations: {
      title: meta.name,
      readOnlyHint: meta.readOnly,
      destructiveHint: meta.destructive ?? !meta.readOnly,
      idempotentHint: meta.idempotent ?? meta.readOnly,
      openWorldHint: meta.openWorld ?? false,
    },
    kind: meta.kind,
    title: meta.name,
  } as Static<typeof ToolDefinition>;
}

/**
 * The arguments the LLM sends: the Action's members without `kind`, plus `summary` (a short note of
 * what the call does) and, for tools that change things, `security_risk`.
 */
export function llmParameters(actionSchema: TObject, readOnly: boolean): Record<string, unknown> {
  // Every runtime asks this of the same few schemas; the answer is only read (sent to the LLM).
  const made = parametersOf[readOnly ? 1 : 0];
  let parameters = made.get(actionSchema);
  if (!parameters) {
    parameters = makeParameters(actionSchema, readOnly);
    made.set(actionSchema, parameters);
  }
  return parameters;
}

/** llmParameters' answers by schema: for tools that change things, and for read-only ones. */
const parametersOf: readonly [
  WeakMap<TObject, Record<string, unknown>>,
  WeakMap<TObject, Record<string, unknown>>,
] = [new WeakMap(), new WeakMap()];

function makeParameters(actionSchema: TObject, readOnly: boolean): Record<string, unknown> {
  const { kind: _kind, ...members } = actionSchema.properties as Record<string, unknown>;
  const properties: Record<string, unknown> = {
    summary: { type: 'string', description: 'A short (about ten words) summary of what this call does.' },
    ...strip(members),
  };
  if (!readOnly) {
    properties.security_risk = {
      type: 'string',
      enum: ['LOW', 'MEDIUM', 'HIGH'],
      description: 'Your assessment of how risky this call is for the user and the system.',
    };
  }
  const required = ((actionSchema.required as string[] | undefined) ?? []).filter((r) => r !== 'kind');
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Plain JSON Schema for the LLM: TypeBox symbols dropped, nullable members as type arrays. */
function strip(members: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(members)) as Record<string, unknown>;
}
