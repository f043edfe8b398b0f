// What the file tools share: building a tool from its schemas and an executor that may throw a
// message for the agent (turned into an is_error observation, which the agent can act on).
import type { TObject } from 'typebox';
import { toolDefinition } from '../define.js';
import { PathError } from '../paths.js';
import type { Tool, ToolContext } from '../types.js';

/** A failure the agent should read and correct. */
export class ToolInputError extends Error {}

type Text = { type: 'text'; text: string; cache_prompt: boolean };
export const text = (t: string): Text => ({ type: 'text', text: t, cache_prompt: false });

export interface FileToolSpec<A> {
  name: string;
  kind: string;
  actionKind: string;
  observationKind: string;
  actionSchema: TObject;
  readOnly: boolean;
  description: string;
  /** The observation's own members; `content` is the text the agent reads. */
  run(action: A, ctx: ToolContext): Promise<{ members: Record<string, unknown>; text: string }>;
  /** Members an error observation must still carry (required ones, or ones that repeat the error). */
  errorMembers?(action: A, message: string): Record<string, unknown>;
}

export function fileTool<A>(spec: FileToolSpec<A>): Tool<A> {
  return {
    name: spec.name,
    actionKind: spec.actionKind,
    actionSchema: spec.actionSchema,
    readOnly: spec.readOnly,
    definition: toolDefinition({
      name: spec.name,
      kind: spec.kind,
      actionKind: spec.actionKind,
      observationKind: spec.observationKind,
      readOnly: spec.readOnly,
      description: spec.description,
    }),
    async execute(action, ctx) {
      try {
        const { members, text: body } = await spec.run(action, ctx);
        return { kind: spec.observationKind, ...members, content: [text(body)], is_error: false };
      } catch (error) {
        if (
          !(
            error instanceof ToolInputError ||
            error instanceof PathError ||
            (error as NodeJS.ErrnoException).code
          )
        )
          throw error;
        return {
          kind: spec.observationKind,
          ...spec.errorMembers?.(action, (error as Error).message),
          content: [text((error as Error).message)],
          is_error: true,
        };
      }
    },
  };
}
