// agentd's summarization prompt (its own words) and the plain-text form of the events it summarizes.
import type { ViewEvent } from './view.js';

/** Longest text kept of one event in the prompt: a long tool output is mostly noise for a summary. */
const MAX_EVENT_CHARS = 4_000;

/**
 * Most characters of events in one summarizing call (~30k tokens): a view past it (a long history
 * condensed for the first time, or a huge one a request cut in half) is summed up in parts, each
 * merged into the summary of the parts before it, so no prompt outgrows the LLM's context.
 */
export const MAX_PROMPT_EVENT_CHARS = 120_000;

const INSTRUCTIONS = `You are keeping the memory of an autonomous software agent that works in a sandboxed workspace.
Its conversation has grown too long, so the events listed below are about to be dropped from what it sees.
Your summary will take their place. The agent will still see the start of the conversation (its instructions
and the user's first request) and the most recent events, but nothing in between except what you write.

Write the summary for the agent itself, so it can carry on without repeating work or losing track. Use these
headings and leave out any that would be empty:
USER REQUESTS: everything the user asked for, including later changes and exact requirements (quote them
  when the wording matters).
PROGRESS: what has been done and verified so far, with the files, commands and outcomes that matter.
CURRENT STATE: files created or changed, processes started, tests failing and their errors, open problems.
KNOWLEDGE: facts learned that are still useful (how the code is laid out, configuration, causes of bugs,
  approaches that failed and should not be retried).
NEXT STEPS: what remains, in order.

Keep paths, names, numbers and error messages exact. Be brief but do not drop anything the agent will need.
Include only what the events show; do not guess. Reply with the summary only.`;

/**
 * The events as the prompt lists them, numbered, in parts of at most MAX_PROMPT_EVENT_CHARS (one event
 * is never split; an event is clipped to MAX_EVENT_CHARS first).
 */
export function eventParts(events: readonly ViewEvent[]): string[][] {
  const parts: string[][] = [];
  let part: string[] = [];
  let size = 0;
  events.forEach((e, i) => {
    const line = `[${i + 1}] ${clip(render(e))}`;
    if (part.length > 0 && size + line.length > MAX_PROMPT_EVENT_CHARS) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(line);
    size += line.length + 2;
  });
  if (part.length > 0) parts.push(part);
  return parts;
}

/** The one user message of a summarizing call: `lines` are a part of eventParts. */
export function summarizationPrompt(previousSummary: string | null, lines: readonly string[]): string {
  const parts = [INSTRUCTIONS];
  if (previousSummary) {
    parts.push(
      'An earlier summary already stands for the events before these. Merge it into yours: keep what is',
      'still true, update what has changed.',
      `<earlier_summary>\n${previousSummary}\n</earlier_summary>`,
    );
  }
  parts.push(`<events>\n${lines.join('\n\n')}\n</events>`);
  return parts.join('\n\n');
}

function clip(text: string): string {
  if (text.length <= MAX_EVENT_CHARS) return text;
  const half = Math.floor(MAX_EVENT_CHARS / 2);
  return `${text.slice(0, half)}\n…[${text.length - 2 * half} characters left out]…\n${text.slice(-half)}`;
}

type Content = { type?: string; text?: string }[] | undefined;

function texts(content: Content): string {
  return (content ?? [])
    .map((c) => (typeof c.text === 'string' ? c.text : `[${c.type ?? 'content'}]`))
    .join('\n');
}

function render(e: ViewEvent): string {
  switch (e.kind) {
    case 'SystemPromptEvent':
      return 'System prompt of the agent (unchanged, still visible to it).';
    case 'MessageEvent': {
      const m = e.llm_message as { role: string; content?: Content };
      const who = e.source === 'user' ? 'User' : e.source === 'agent' ? 'Agent' : 'Environment';
      return `${who} message: ${texts(m.content)}`;
    }
    case 'ActionEvent': {
      const call = e.tool_call as { name: string; arguments: string };
      const thought = texts(e.thought as Content);
      return `${thought ? `Agent thought: ${thought}\n` : ''}Agent called ${call.name} with ${call.arguments}`;
    }
    case 'ObservationEvent': {
      const o = e.observation as { content?: Content; is_error?: boolean };
      return `Result of ${e.tool_name}${o.is_error ? ' (error)' : ''}: ${texts(o.content)}`;
    }
    case 'AgentErrorEvent':
      return `Error from ${e.tool_name}: ${e.error as string}`;
    case 'UserRejectObservation':
      return `The call to ${e.tool_name} was rejected: ${(e.rejection_reason as string) ?? ''}`;
    case 'CondensationSummaryEvent':
      return `Earlier summary: ${e.summary as string}`;
    default:
      return e.kind;
  }
}
