import type { ScriptStep } from '../src/llm/index.js';

/** The bench's task: `n` steps of one terminal `echo` each, then finish. */
export function echoScript(n: number): (request: unknown, index: number) => ScriptStep {
  return (_r, i) =>
    i < n
      ? { toolCalls: [{ name: 'terminal', arguments: { command: `echo ${i}` } }] }
      : { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };
}
