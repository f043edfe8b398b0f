// A conversation's events as a person reads them in a terminal: one short line per action, the first
// lines of each observation, errors plainly. Pure: the screen decides colours and the spinner.
import type { Event } from './api.js';

export type Tone = 'user' | 'message' | 'thought' | 'action' | 'output' | 'error' | 'note';

export interface Line {
  tone: Tone;
  text: string;
}

/** Lines of an observation's output shown; the rest is counted. */
const OUTPUT_LINES = 8;
/** An action's arguments are cut here (a file's whole text would fill the screen). */
const ARGUMENT_CHARS = 120;

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content
        .map((c) => (typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : ''))
        .join('')
    : typeof content === 'string'
      ? content
      : '';

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Up to OUTPUT_LINES lines of text, indented, then how many more there were. */
function excerpt(text: string, tone: Tone, max = OUTPUT_LINES): Line[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  const shown = lines.slice(0, max).map((l) => ({ tone, text: `  ${cut(l, 200)}` }));
  if (lines.length > max) shown.push({ tone: 'note', text: `  … ${lines.length - max} more lines` });
  return shown;
}

function actionLine(tool: string, action: Record<string, unknown>, args: string): string {
  switch (tool) {
    case 'terminal':
      return `$ ${cut(String(action.command ?? ''), 400)}`;
    case 'file_editor':
      return `✎ ${action.command ?? 'edit'} ${action.path ?? ''}`.trimEnd();
    case 'task_tracker': {
      const tasks = Array.isArray(action.task_list) ? action.task_list.length : 0;
      return `☐ tasks: ${action.command ?? 'view'}${tasks ? ` (${tasks})` : ''}`;
    }
    case 'task': {
      const what = String(action.description ?? '') || String(action.prompt ?? '').split('\n')[0]!;
      const resumed = action.resume ? ` (resuming ${action.resume})` : '';
      return `⇢ sub-agent ${action.subagent_type ?? 'general-purpose'}${resumed}: ${cut(what, 200)}`;
    }
    default:
      return `• ${tool} ${cut(args, ARGUMENT_CHARS)}`.trimEnd();
  }
}

/** The tools whose action and observation say nothing the final message or a thought does not. */
export const QUIET_TOOLS = new Set(['finish', 'think']);

export function describe(event: Event): Line[] {
  switch (event.kind) {
    case 'MessageEvent': {
      const text = textOf((event.llm_message as { content?: unknown } | undefined)?.content).trim();
      if (!text) return [];
      if (event.source === 'user') return [{ tone: 'user', text: `> ${cut(text.split('\n')[0]!, 200)}` }];
      return [{ tone: 'message', text }];
    }
    case 'ActionEvent': {
      const tool = String(event.tool_name ?? '');
      const action = (event.action as Record<string, unknown> | undefined) ?? {};
      const lines: Line[] = [];
      const thought = textOf(event.thought).trim() || (tool === 'think' ? String(action.thought ?? '') : '');
      if (thought) lines.push({ tone: 'thought', text: cut(thought, 600) });
      // What the agent says it did, at the end of each run (a goal has several).
      const said = tool === 'finish' && typeof action.message === 'string' ? action.message.trim() : '';
      if (said) lines.push({ tone: 'message', text: said });
      if (QUIET_TOOLS.has(tool)) return lines;
      const args = String((event.tool_call as { arguments?: unknown } | undefined)?.arguments ?? '');
      const risk =
        event.security_risk && event.security_risk !== 'UNKNOWN' ? `  [risk: ${event.security_risk}]` : '';
      lines.push({ tone: 'action', text: `${actionLine(tool, action, args)}${risk}` });
      return lines;
    }
    case 'ObservationEvent': {
      const tool = String(event.tool_name ?? '');
      if (QUIET_TOOLS.has(tool)) return [];
      const observation = (event.observation as Record<string, unknown> | undefined) ?? {};
      const failed = observation.is_error === true;
      const text = textOf(observation.content);
      const lines = excerpt(text, failed ? 'error' : 'output', tool === 'terminal' ? OUTPUT_LINES : 3);
      const code = observation.exit_code;
      if (tool === 'terminal' && typeof code === 'number' && code !== 0)
        lines.push({ tone: 'error', text: `  exit code ${code}` });
      if (observation.timeout === true) lines.push({ tone: 'error', text: '  (timed out)' });
      return lines;
    }
    case 'AgentErrorEvent':
      return [
        { tone: 'error', text: `✗ ${event.tool_name ?? 'agent'}: ${cut(String(event.error ?? ''), 600)}` },
      ];
    case 'UserRejectObservation':
      return [{ tone: 'error', text: `✗ rejected: ${event.rejection_reason ?? ''}`.trimEnd() }];
    case 'ConversationErrorEvent':
      return [{ tone: 'error', text: `✗ ${event.code ?? 'error'}: ${cut(String(event.detail ?? ''), 600)}` }];
    case 'Condensation':
      return [{ tone: 'note', text: '… older history condensed' }];
    case 'ConversationStateUpdateEvent':
      return event.key === 'goal' ? goalLines(event.value as GoalValue | undefined) : [];
    default:
      return [];
  }
}

type GoalValue = {
  status: string;
  iteration: number;
  max_iterations: number;
  verdict: { score: number; missing: string } | null;
};

/** A /goal audit (agentd run --goal): its round, how done the judge found it, what is missing. */
function goalLines(goal: GoalValue | undefined): Line[] {
  if (!goal?.verdict) return [];
  const missing = goal.verdict.missing ? `: missing ${cut(goal.verdict.missing, 400)}` : '';
  const done = `${Math.round(goal.verdict.score * 100)}% done`;
  return [{ tone: 'note', text: `◎ goal audit ${goal.iteration}/${goal.max_iterations}, ${done}${missing}` }];
}
