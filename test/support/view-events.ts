// Events with just the members the LLM's view reads (agent/view.ts): for the view's tests and
// ResidentHistory's.
import { type AnyEvent, newEventId } from '../../src/events/index.js';

export const ev = (kind: string, members: Record<string, unknown> = {}) =>
  ({ id: newEventId(), timestamp: '2025-01-01T00:00:00', kind, ...members }) as unknown as AnyEvent;
export const system = () =>
  ev('SystemPromptEvent', { source: 'agent', system_prompt: { type: 'text', text: 'SYS' }, tools: [] });
export const user = (text: string) =>
  ev('MessageEvent', { source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text }] } });
let calls = 0;
/** A terminal call of the LLM response `response` (calls of one response are one batch). */
export const action = (response: string) =>
  ev('ActionEvent', {
    source: 'agent',
    thought: [],
    llm_response_id: response,
    tool_name: 'terminal',
    tool_call_id: `call_${++calls}`,
    tool_call: { id: `call_${calls}`, name: 'terminal', arguments: '{}', origin: 'completion' },
    action: { kind: 'TerminalAction', command: 'ls' },
  });
/** The answer to `a`: its observation, or another answer kind (AgentErrorEvent). */
export const result = (a: AnyEvent, text = 'out', kind = 'ObservationEvent') =>
  ev(kind, {
    source: 'environment',
    tool_name: 'terminal',
    tool_call_id: (a as { tool_call_id: string }).tool_call_id,
    action_id: a.id,
    error: 'failed',
    observation: { kind: 'TerminalObservation', content: [{ type: 'text', text }] },
  });
