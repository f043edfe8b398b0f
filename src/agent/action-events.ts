// An LLM response's tool calls as ActionEvents: the tool looked up (older OpenHands names accepted),
// the arguments parsed and validated against the tool's action schema. A call that cannot become an
// action keeps `action: null` and carries the error its AgentErrorEvent will say.
import { parse } from '../events/index.js';
import type { LlmMessage, LlmResponse } from '../llm/index.js';
import type { Tool } from '../tools/index.js';
import { type ActionEventT, base, textContent } from './agent-events.js';

/** Names models use for OpenHands tools under older names (reference §5.3). */
const ALIASES: Record<string, string> = {
  bash: 'terminal',
  execute_bash: 'terminal',
  command: 'terminal',
  execute: 'terminal',
  str_replace_editor: 'file_editor',
  str_replace: 'file_editor',
};

export interface BuiltAction {
  event: ActionEventT;
  /** Why the call could not become an action; null when it did. */
  error: string | null;
}

/**
 * One ActionEvent per call, the response's thought and reasoning on the first; calls after a finish
 * are dropped. `keepRisk`: the LLM security analyzer is on, so the predicted risk stays on the event.
 */
export function actionEvents(
  tools: ReadonlyMap<string, Tool>,
  response: LlmResponse,
  calls: NonNullable<LlmMessage['tool_calls']>,
  keepRisk: boolean,
): BuiltAction[] {
  const out: BuiltAction[] = [];
  const message = response.message;
  for (const call of calls) {
    const first = out.length === 0;
    const name = tools.has(call.name) ? call.name : (ALIASES[call.name] ?? call.name);
    const { action, summary, risk, error } = buildAction(tools, name, call.arguments);
    const event = {
      ...base('agent'),
      thought: first
        ? (message.content ?? [])
            .filter((c) => 'text' in c)
            .map((c) => textContent((c as { text: string }).text))
        : [],
      ...(first && message.reasoning_content ? { reasoning_content: message.reasoning_content } : {}),
      thinking_blocks: first ? (message.thinking_blocks ?? []) : [],
      ...(first && message.responses_reasoning_item
        ? { responses_reasoning_item: message.responses_reasoning_item }
        : {}),
      action,
      tool_name: name,
      tool_call_id: call.id,
      tool_call: { id: call.id, name: call.name, arguments: call.arguments, origin: call.origin },
      llm_response_id: response.id,
      // The predicted risk stays in tool_call.arguments either way; the action never has it.
      security_risk: keepRisk && risk && !tools.get(name)?.readOnly ? risk : 'UNKNOWN',
      summary: summary ?? `${name}: ${call.arguments}`,
      kind: 'ActionEvent',
    } as ActionEventT;
    out.push({ event, error });
    if (action && (action as { kind: string }).kind === 'FinishAction') break; // later calls are dropped
  }
  return out;
}

function buildAction(tools: ReadonlyMap<string, Tool>, name: string, argumentsText: string) {
  const tool = tools.get(name);
  const none = { action: null, summary: null as string | null, risk: null as string | null };
  if (!tool)
    return {
      ...none,
      error: `Tool '${name}' not found. Available: ${JSON.stringify([...tools.keys()])}`,
    };
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(argumentsText || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return {
      ...none,
      error: `Error validating tool '${name}': Arguments: unparseable JSON. Send the arguments as one JSON object.`,
    };
  }
  const { summary, security_risk: risk, ...members } = args;
  if (risk !== undefined && !['LOW', 'MEDIUM', 'HIGH', 'UNKNOWN'].includes(risk as string)) {
    return {
      ...none,
      error: `Error validating tool '${name}': security_risk must be one of LOW, MEDIUM, HIGH, UNKNOWN (got ${JSON.stringify(risk)}).`,
    };
  }
  const result = parse(
    tool.actionSchema,
    tool.buildAction ? tool.buildAction(members) : { ...members, kind: tool.actionKind },
  );
  if (!result.ok) {
    const details = result.errors.map((e) => `${e.loc.join('.') || '(arguments)'}: ${e.msg}`).join('; ');
    return {
      ...none,
      error: `Error validating tool '${name}': ${details}. Parameters provided: ${JSON.stringify(Object.keys(members))}`,
    };
  }
  return {
    action: result.value,
    summary: typeof summary === 'string' ? summary : null,
    risk: (risk as string | undefined) ?? null,
    error: null,
  };
}
