// task (OpenHands' task_tool_set): the agent hands a task to a sub-agent of a named type, which works
// on it in a conversation of its own, in the same workspace, and reports back. The tool only speaks
// to the LLM; who runs the sub-agent is the SubAgentPort its conversation gives it (conversation/
// sub-agent-tasks.ts), so the domain here knows nothing of conversations.
import type { Static } from 'typebox';
import { TaskAction, type TaskObservation } from '../events/index.js';
import { llmParameters, toolDefinition } from './define.js';
import type { LlmContent, Tool } from './types.js';

type Action = Static<typeof TaskAction>;
type Observation = Static<typeof TaskObservation>;

/** A sub-agent type, as the tool's description lists it. */
export interface SubAgentType {
  name: string;
  description: string;
  tools: readonly string[];
}

/** What a task came to: its id (to resume it), and the sub-agent's report or why it has none. */
export interface TaskOutcome {
  taskId: string;
  status: 'completed' | 'error';
  text: string;
}

/** How a conversation runs its sub-agents (conversation/sub-agent-tasks.ts). */
export interface SubAgentPort {
  /** The sub-agent types this conversation may launch, for the tool's description. */
  readonly types: readonly SubAgentType[];
  /** Runs a task to its end; `signal` aborts when the calling conversation is interrupted. */
  run(
    task: { prompt: string; subagentType: string; description: string | null; resume: string | null },
    signal: AbortSignal,
  ): Promise<TaskOutcome>;
}

/** The registry names that make this tool: OpenHands' tool set and its one tool. */
export const TASK_TOOL_NAMES = ['task_tool_set', 'task'] as const;

/** Whether a registry name makes the task tool. */
export const isTaskTool = (name: string): boolean => (TASK_TOOL_NAMES as readonly string[]).includes(name);

const DESCRIPTION = `Launch a sub-agent to work on a task with several steps on its own, in this workspace, and report back to you.

A sub-agent starts with nothing but the prompt you give it: it does not see this conversation. It has its own tools, works until the task is done, and answers with a report, which is all you get back. Each delegation costs time and tokens, so use one when the task really gains from a separate agent (exploring unfamiliar code, running a test suite and summarizing it, a self-contained change), not for a single command or a file you can read yourself.

Available agent types and the tools they have:
{types}

Write the prompt as a complete brief: what to do, the files, names and error messages that matter, and what the report must contain (paths, line numbers, pass/fail counts). To continue a task that already ran, give its task id as \`resume\`: the sub-agent keeps what it did before.`;

/** What the LLM may send: OpenHands leaves the deprecated `max_turns` out of its schema. Made once. */
let parametersMade: Record<string, unknown> | null = null;
function parameters(): Record<string, unknown> {
  if (parametersMade) return parametersMade;
  const full = llmParameters(TaskAction, false) as { properties: Record<string, unknown> };
  const { max_turns: _ignored, ...properties } = full.properties;
  parametersMade = { ...full, properties };
  return parametersMade;
}

export function taskTool(port: SubAgentPort): Tool<Action, Observation> {
  const types = port.types
    .map((t) => `- **${t.name}**: ${t.description}${t.tools.length ? ` (tools: ${t.tools.join(', ')})` : ''}`)
    .join('\n');
  return {
    name: 'task',
    actionKind: 'TaskAction',
    actionSchema: TaskAction,
    readOnly: false,
    // Each task runs in a conversation of its own: several may run at once.
    concurrent: true,
    parameters: parameters(),
    definition: toolDefinition({
      name: 'task',
      kind: 'TaskTool',
      actionKind: 'TaskAction',
      observationKind: 'TaskObservation',
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
      description: DESCRIPTION.replace('{types}', () => types || '- (none)'),
    }),
    async execute(action, ctx) {
      const subagent = action.subagent_type ?? 'general-purpose';
      const outcome = await port.run(
        {
          prompt: action.prompt,
          subagentType: subagent,
          description: action.description ?? null,
          resume: action.resume ?? null,
        },
        ctx.signal,
      );
      return {
        kind: 'TaskObservation',
        task_id: outcome.taskId,
        subagent,
        status: outcome.status,
        content: [{ type: 'text', text: outcome.text, cache_prompt: false }],
        is_error: outcome.status === 'error',
      };
    },
    toLlmContent(observation): LlmContent[] {
      const info = `Task ID: ${observation.task_id}\nSubagent: ${observation.subagent}\nStatus: ${observation.status}`;
      return [
        { type: 'text', text: info, cache_prompt: false },
        ...(observation.is_error
          ? [{ type: 'text' as const, text: 'The task did not complete:', cache_prompt: false }]
          : []),
        ...(observation.content ?? []),
      ];
    },
  };
}
