// OpenHands' `/goal`: work toward an objective until a judge (the agent's LLM, asked apart from the
// conversation) finds it provably done, or a cap of audit rounds is reached. This file is the
// decision: the judge's prompt and verdict, and the controller that counts rounds and says whether
// to go on (with a follow-up message) or stop. The conversation layer drives it (sends the messages,
// runs the agent, records each status as a `goal` state update).
import type { LLM, LlmMessage } from '../llm/index.js';

/** The judge's verdict on whether the objective is done. */
export interface GoalVerdict {
  /** Probability (0–1) that the whole objective is provably done. */
  score: number;
  complete: boolean;
  /** What remains, empty when complete. */
  missing: string;
}

export type GoalStatusName = 'running' | 'complete' | 'capped' | 'interrupted';

/** A goal loop's status, as the `value` of a ConversationStateUpdateEvent with key `goal`. */
export interface GoalStatus {
  active: boolean;
  status: GoalStatusName;
  /** Audit rounds done so far. */
  iteration: number;
  max_iterations: number;
  objective: string;
  /** The last round's verdict (none before the first audit). */
  verdict: GoalVerdict | null;
}

/** OpenHands' judge prompt, word for word: the same audit a client of its agent server gets. */
const JUDGE_PROMPT = `You are auditing whether a long-running GOAL has been COMPLETED by an AI software agent.

<objective>
{objective}
</objective>

Derive the concrete requirements implied by the objective. For EACH requirement,
look for authoritative evidence in the transcript below: file contents, command
output, or test results produced by the agent. Treat missing, uncertain, or
merely-claimed-but-unverified evidence as NOT satisfied.

<transcript>
{transcript}
</transcript>

Respond with STRICT JSON and nothing else, in exactly this shape:
{"score": <float 0.0-1.0, probability the FULL objective is provably done>, "complete": <true|false>, "missing": "<concise description of what remains, or an empty string if complete>"}`;

const FOLLOWUP_PROMPT = `The goal is NOT yet complete (audit iteration {iteration}).
Outstanding: {missing}

Inspect the real current state of the workspace (do not rely on memory). For each remaining requirement, make concrete progress and gather authoritative evidence by running the relevant tests/commands. Keep the full objective intact and finish only once every requirement is provably satisfied.`;

export const GOAL_RESUME_PROMPT =
  'Resuming a goal that was paused or interrupted. Re-check the real current state of the workspace (do not rely on memory) and continue making concrete, verified progress toward the original objective. Finish only once every requirement is provably satisfied.';

/** Replaces `{name}` in a template once, so text put in (the transcript) is never read as a placeholder. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The conversation as the judge reads it: `role: text` turns, the system prompt left out (large, no evidence). */
export function goalTranscript(messages: readonly LlmMessage[]): string {
  const turns: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const text = (m.content ?? [])
      .map((c) => ('text' in c ? c.text : ''))
      .join('\n')
      .trim();
    if (text) turns.push(`${m.role}: ${text}`);
  }
  return turns.join('\n\n');
}

/**
 * The verdict in the judge's answer: the whole text as JSON, else its outermost `{…}`. An answer that
 * cannot be read is "not complete" (score 0), so the loop goes on rather than stopping falsely.
 */
export function parseVerdict(answer: string): GoalVerdict {
  const raw = answer.trim();
  const block = /\{[\s\S]*\}/.exec(raw)?.[0];
  let data: Record<string, unknown> | null = null;
  for (const candidate of block ? [raw, block] : [raw]) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        data = parsed as Record<string, unknown>;
        break;
      }
    } catch {
      // the next candidate
    }
  }
  if (!data) return { score: 0, complete: false, missing: 'Judge verdict could not be parsed.' };
  const number = Number(data.score ?? 0);
  const score = Number.isFinite(number) ? Math.min(1, Math.max(0, number)) : 0;
  return {
    score,
    complete: data.complete === undefined ? score >= 1 : Boolean(data.complete),
    missing: data.missing ? String(data.missing) : '',
  };
}

/** Asks `llm` (no tools) whether `objective` is done, from the conversation's messages. */
export async function judgeGoal(
  llm: LLM,
  objective: string,
  messages: readonly LlmMessage[],
  signal?: AbortSignal,
): Promise<GoalVerdict> {
  const prompt = fill(JUDGE_PROMPT, { objective, transcript: goalTranscript(messages) });
  const response = await llm.complete(
    { messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], tools: [] },
    signal,
  );
  return parseVerdict((response.message.content ?? []).map((c) => ('text' in c ? c.text : '')).join('\n'));
}

/** What to do after an audit: go on with a follow-up message, or stop with the final status. */
export type GoalStep = { followup: string; verdict: GoalVerdict } | { done: GoalStatus };

/** Counts audit rounds and decides, without I/O (OpenHands' GoalController). */
export class GoalController {
  constructor(
    readonly objective: string,
    readonly maxIterations: number,
    /** Rounds already done (a resumed goal goes on from its count). */
    public iteration = 0,
  ) {}

  status(active: boolean, status: GoalStatusName, verdict: GoalVerdict | null = null): GoalStatus {
    return {
      active,
      status,
      iteration: this.iteration,
      max_iterations: this.maxIterations,
      objective: this.objective,
      verdict,
    };
  }

  /** One round audited: done (complete, or the cap reached), else the follow-up the agent gets. */
  afterAudit(verdict: GoalVerdict): GoalStep {
    this.iteration += 1;
    if (verdict.complete) return { done: this.status(false, 'complete', verdict) };
    if (this.iteration >= this.maxIterations) return { done: this.status(false, 'capped', verdict) };
    const missing = verdict.missing || 'Some requirements are not yet verified.';
    return { followup: fill(FOLLOWUP_PROMPT, { iteration: String(this.iteration), missing }), verdict };
  }
}
