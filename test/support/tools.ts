// Calling tools directly, without a conversation: the context a tool runs in, and a caller that
// passes the arguments through the tool's action schema first, as the agent does.
import { join } from 'node:path';
import { parse } from '../../src/events/index.js';
import type { Tool, ToolContext } from '../../src/tools/index.js';

/** An observation as the file tools give it. */
export type Obs = { kind: string; content: { text: string }[]; is_error: boolean } & Record<string, unknown>;
export const text = (o: Obs) => o.content.map((c) => c.text).join('');

/** Conversation `c` working in `workingDir` (its state under `.state`), with these secrets. */
export function toolContext(workingDir: string, secrets: Record<string, string> = {}): ToolContext {
  return {
    workingDir,
    conversationId: 'c',
    persistenceDir: join(workingDir, '.state'),
    signal: new AbortController().signal,
    secrets: () => secrets,
  };
}

/** Calls one of `tools` by name in `ctx`; arguments the action schema refuses throw. */
export function toolCaller(tools: Tool[], ctx: ToolContext) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return async (name: string, args: Record<string, unknown>): Promise<Obs> => {
    const tool = byName.get(name) as Tool;
    const action = parse(tool.actionSchema, { ...args, kind: tool.actionKind });
    if (!action.ok) throw new Error(JSON.stringify(action.errors));
    return (await tool.execute(action.value, ctx)) as Obs;
  };
}
