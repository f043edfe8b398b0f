// Critics: a second opinion on what the agent does, as a CriticResult (`score` 0..1, the likelihood
// the agent is succeeding at the user's task; `message`; `metadata`) on ActionEvents and agent
// MessageEvents. Pluggable behind `Critic`; `LLMCritic` asks an LLM to judge, `PassCritic` always
// passes (a stand-in that costs nothing). A critic that fails never stops the agent: the event goes
// out without a result.
import type { Static } from 'typebox';
import type { CriticResult as CriticResultSchema } from '../events/index.js';
import type { LLM, LlmMessage } from '../llm/index.js';
import { textContent as text } from './agent-events.js';

export type CriticResult = Static<typeof CriticResultSchema>;

/** OpenHands' modes: judge only the end of a task (finish, a reply), or every action. */
export type CriticMode = 'finish_and_message' | 'all_actions';

/** What is being judged: the agent's next step, after the conversation so far. */
export type CriticSubject =
  | { kind: 'actions'; calls: { tool: string; arguments: string }[]; eventIds: string[] }
  | { kind: 'message'; text: string; eventIds: string[] };

export interface Critic {
  readonly mode: CriticMode;
  /** LLMs whose cost counts toward the conversation's (for stats and budgets). */
  readonly llms: readonly LLM[];
  evaluate(
    history: readonly LlmMessage[],
    subject: CriticSubject,
    signal?: AbortSignal,
  ): Promise<CriticResult | null>;
}

export class PassCritic implements Critic {
  readonly llms: LLM[] = [];
  constructor(readonly mode: CriticMode = 'finish_and_message') {}
  async evaluate(_history: readonly LlmMessage[], subject: CriticSubject): Promise<CriticResult> {
    return { score: 1, message: null, metadata: { critic: 'PassCritic', event_ids: subject.eventIds } };
  }
}

const INSTRUCTIONS = `You review the work of an autonomous software agent for its user.
You get the conversation so far (the user's request, the agent's tool calls and their results) and the agent's latest step.
Judge how likely it is that the agent is succeeding at what the user asked, taking the latest step into account:
a step that finishes without doing or checking the work, ignores an error, or does something the user did not ask for lowers the likelihood.
Answer with one JSON object and nothing else: {"score": <number from 0 to 1>, "message": "<one or two sentences on why>"}`;

/** Longest transcript the critic reads; the beginning (the task) and the end (recent work) are kept. */
const MAX_TRANSCRIPT = 40_000;

function render(message: LlmMessage): string {
  const text = (message.content ?? []).map((c) => ('text' in c ? c.text : '[image]')).join('\n');
  const calls = (message.tool_calls ?? []).map((c) => `call ${c.name}(${c.arguments})`).join('\n');
  const who = message.role === 'tool' ? `tool result (${message.name ?? ''})` : message.role;
  return `## ${who}\n${[text, calls].filter(Boolean).join('\n')}`;
}

function transcript(history: readonly LlmMessage[]): string {
  const text = history
    .filter((m) => m.role !== 'system')
    .map(render)
    .join('\n\n');
  if (text.length <= MAX_TRANSCRIPT) return text;
  const half = MAX_TRANSCRIPT / 2;
  return `${text.slice(0, half)}\n\n[... middle of the conversation left out ...]\n\n${text.slice(-half)}`;
}

function describe(subject: CriticSubject): string {
  if (subject.kind === 'message') return `The agent replies to the user and stops:\n${subject.text}`;
  return `The agent's next tool calls:\n${subject.calls.map((c) => `${c.tool}(${c.arguments})`).join('\n')}`;
}

/** The first JSON object in a reply with a numeric score; null when there is none. */
export function parseVerdict(text: string): { score: number; message: string | null } | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return null;
  try {
    const data = JSON.parse(text.slice(start, end + 1)) as { score?: unknown; message?: unknown };
    const score = typeof data.score === 'string' ? Number(data.score) : data.score;
    if (typeof score !== 'number' || !Number.isFinite(score)) return null;
    return {
      score: Math.min(1, Math.max(0, score)),
      message: typeof data.message === 'string' ? data.message : null,
    };
  } catch {
    return null;
  }
}

export class LLMCritic implements Critic {
  readonly llms: LLM[];
  constructor(
    private readonly llm: LLM,
    readonly mode: CriticMode = 'finish_and_message',
  ) {
    this.llms = [llm];
  }

  async evaluate(
    history: readonly LlmMessage[],
    subject: CriticSubject,
    signal?: AbortSignal,
  ): Promise<CriticResult | null> {
    try {
      const response = await this.llm.complete(
        {
          messages: [
            { role: 'system', content: [text(INSTRUCTIONS)] },
            {
              role: 'user',
              content: [
                text(`# Conversation\n\n${transcript(history)}\n\n# Latest step\n\n${describe(subject)}`),
              ],
            },
          ],
          tools: [],
        },
        signal,
      );
      const reply = (response.message.content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
      const verdict = parseVerdict(reply);
      if (!verdict) return null;
      return {
        ...verdict,
        metadata: {
          critic: 'LLMCritic',
          model: this.llm.config.model,
          llm_response_id: response.id,
          event_ids: subject.eventIds,
        },
      };
    } catch {
      return null;
    }
  }
}
