// The agent: one step = one LLM call and the tool calls it asks for. Events come out in OpenHands'
// order: all ActionEvents of a response first (the thought and reasoning on the first), then one
// answer per action in call order (ObservationEvent, AgentErrorEvent or UserRejectObservation).
import type { AnyEvent, SystemPromptEvent } from '../events/index.js';
import type { HookRunner } from '../hooks/index.js';
import {
  type LLM,
  LLMContextWindowExceededError,
  type LlmMessage,
  type LlmResponse,
  type LlmTool,
} from '../llm/index.js';
import { llmParameters, type Tool } from '../tools/index.js';
import { actionEvents } from './action-events.js';
import { agentError, base, pendingActions, textContent } from './agent-events.js';
import { AgentLlms, type SwitchedLlms } from './agent-llms.js';
import type { SummarizingCondenser } from './condenser.js';
import { needsConfirmation } from './confirmation.js';
import type { Critic, CriticResult } from './critic.js';
import { type GoalVerdict, judgeGoal } from './goal.js';
import { hookExecutionEvents } from './hook-events.js';
import type { AgentHost } from './host.js';
import { completionLogEvent, tokenEvent } from './llm-events.js';
import { dynamicContext, SYSTEM_PROMPT } from './prompt.js';
import type { AgentContext } from './skills.js';
import { ToolExecution } from './tool-execution.js';
import { MessageView } from './view.js';

export interface AgentSpec {
  llm: LLM;
  tools: Tool[];
  /** Tool calls of one response executed at once (default 1: one after the other). */
  toolConcurrencyLimit?: number;
  /** Keep the LLM's `security_risk` on actions (an LLM security analyzer is on). */
  securityAnalyzer?: boolean;
  /** Things the agent should know about its setup (e.g. an MCP server that did not start). */
  notes?: string[];
  /** The conversation's hooks (pre/post tool use, stop), if any are configured. */
  hooks?: HookRunner | null;
  /** Judges actions and replies (CriticResult on the events), when enabled. */
  critic?: Critic | null;
  /** Repository instructions and knowledge skills. */
  context?: AgentContext | null;
  /** Condenses the LLM's view of long conversations; none: the view keeps every event. */
  condenser?: SummarizingCondenser | null;
  /** The stored stats' `usage_to_metrics`: usage ids no LLM here has are carried on (AgentLlms). */
  storedUsage?: Record<string, unknown>;
  /** The SDK's inline `system_prompt`: used verbatim instead of agentd's (the dynamic context follows). */
  systemPrompt?: string | null;
}

/** How a step ended. */
export type StepOutcome = 'continue' | 'finished' | 'waiting_for_confirmation' | 'error' | 'interrupted';

const CORRECTIVE =
  'Your last response did not include a function call or a message. Please use a tool to proceed with the task.';

export class Agent {
  /** Its LLM, condenser and critic, and the spend they count (switchable: switch_llm). */
  private readonly models: AgentLlms;
  readonly tools: ReadonlyMap<string, Tool>;
  private readonly llmTools: LlmTool[];
  private readonly execution: ToolExecution;
  private keepRisk: boolean;
  private readonly notes: string[];
  readonly hooks: HookRunner | null;
  readonly context: AgentContext | null;
  private readonly systemPrompt: string;
  private view: MessageView;
  /** Prompt + completion tokens of the last LLM call; null when unknown or outdated by a condensation. */
  private contextTokens: number | null = null;
  /** Steps and forced condensations take turns: one never sees the view half-changed by the other. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(spec: AgentSpec) {
    this.models = new AgentLlms(spec.llm, spec.condenser ?? null, spec.critic ?? null, spec.storedUsage);
    this.tools = new Map(spec.tools.map((t) => [t.name, t]));
    this.llmTools = spec.tools.map((t) => ({
      name: t.name,
      description: t.definition.description,
      parameters:
        t.parameters ?? llmParameters(t.actionSchema as Parameters<typeof llmParameters>[0], t.readOnly),
    }));
    this.keepRisk = spec.securityAnalyzer ?? false;
    this.notes = spec.notes ?? [];
    this.hooks = spec.hooks ?? null;
    this.context = spec.context ?? null;
    this.systemPrompt = spec.systemPrompt ?? SYSTEM_PROMPT;
    this.view = new MessageView(this.tools);
    this.execution = new ToolExecution(this.tools, Math.max(1, spec.toolConcurrencyLimit ?? 1), this.hooks);
  }

  systemPromptEvent(workingDir: string): SystemPromptEvent {
    return {
      ...base('agent'),
      system_prompt: textContent(this.systemPrompt),
      tools: [...this.tools.values()].map((t) => t.definition),
      dynamic_context: textContent(
        [
          [dynamicContext(workingDir), ...this.notes.map((n) => `Note: ${n}`)].join('\n'),
          this.context?.systemContext(),
        ]
          .filter(Boolean)
          .join('\n\n'),
      ),
      kind: 'SystemPromptEvent',
    } as SystemPromptEvent;
  }

  /** Turns the LLM security analyzer on or off for the actions to come. */
  setSecurityAnalyzer(on: boolean): void {
    this.keepRisk = on;
  }

  get condenser(): SummarizingCondenser | null {
    return this.models.condenser;
  }

  private get llm(): LLM {
    return this.models.llm;
  }

  private get critic(): Critic | null {
    return this.models.critic;
  }

  /** OpenHands' switch_llm: the next calls go to these LLMs (a step under way finishes on the old ones). */
  switchLlms(next: SwitchedLlms): void {
    this.models.switch(next);
  }

  /** USD spent so far by every LLM the agent uses or used. */
  spent(): number {
    return this.models.spent();
  }

  /** OpenHands' `stats`: one entry per usage id. */
  stats(): Record<string, unknown> {
    return this.models.stats();
  }

  /** What a sub-agent spent for this agent, under its own usage id (AgentLlms.record). */
  recordUsage(usageId: string, entry: unknown): void {
    this.models.record(usageId, entry);
  }

  /** The conversation as the LLM sees it. */
  messages(events: readonly AnyEvent[]): LlmMessage[] {
    // Another history (HEAD moved, or a Condensation replaced the runtime's resident history): the
    // last call's size was another view's.
    if (events !== this.view.source) this.contextTokens = null;
    return this.view.update(events);
  }

  /**
   * One step: run the actions still waiting, or condense the view when it needs it (the step then
   * makes no other LLM call, as in OpenHands), or one LLM call and the actions it asks for.
   */
  step(host: AgentHost): Promise<StepOutcome> {
    return this.takeTurn(() => this.stepNow(host));
  }

  /**
   * Forces a condensation (POST /condense): records a CondensationRequest and condenses at once,
   * after the step in progress if a run is going. Resolves `continue` when condensed or when nothing
   * could be forgotten yet (the request then stays pending), `error` when the summary call failed.
   */
  condense(host: AgentHost): Promise<StepOutcome> {
    return this.takeTurn(async () => {
      await host.emit([{ ...base('environment'), kind: 'CondensationRequest' } as AnyEvent]);
      this.view.update(host.events());
      const outcome = await this.condenseIfNeeded(host);
      return outcome === 'failed' ? 'error' : (outcome ?? 'continue');
    });
  }

  private takeTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async stepNow(host: AgentHost): Promise<StepOutcome> {
    const pending = pendingActions(host.events());
    if (pending.length > 0) return this.execution.execute(host, pending);

    const messages = this.messages(host.events());
    const condensed = await this.condenseIfNeeded(host);
    if (condensed === 'failed') {
      await host.setStatus('error');
      return 'error';
    }
    if (condensed) return condensed;

    let response: LlmResponse;
    const request = { messages, tools: this.llmTools };
    try {
      response = await this.llm.complete(request, host.signal, host.streamDelta?.bind(host));
    } catch (error) {
      if (host.signal.aborted) return 'interrupted';
      const e = error as Error;
      await this.logCompletion(host, request, { error: e });
      // Too long for the model: ask for a condensation and try again next step, unless one is already
      // pending (then the condenser could not shrink the view, and asking again would loop).
      if (e instanceof LLMContextWindowExceededError && this.condenser && !this.view.condensationRequested) {
        await host.emit([{ ...base('environment'), kind: 'CondensationRequest' } as AnyEvent]);
        return 'continue';
      }
      await this.reportFailure(host, e);
      await host.setStatus('error');
      return 'error';
    }
    await host.turn?.();
    this.contextTokens = response.usage.prompt_tokens + response.usage.completion_tokens;
    await host.updateStats(this.stats());
    await this.logCompletion(host, request, { response });
    const tokens = tokenEvent(response);
    if (tokens) await host.emit([tokens]);

    const message = response.message;
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      const agentMessage = {
        ...base('agent'),
        llm_message: { ...message, role: 'assistant' as const },
        llm_response_id: response.id,
        activated_skills: [],
        extended_content: [],
        kind: 'MessageEvent' as const,
      };
      const hasText = (message.content ?? []).some((c) => 'text' in c && c.text.trim() !== '');
      if (hasText) {
        const verdict = await this.judge(host, {
          kind: 'message',
          text: (message.content ?? []).map((c) => ('text' in c ? c.text : '')).join(''),
          eventIds: [agentMessage.id],
        });
        await host.emit([{ ...agentMessage, ...verdict } as AnyEvent]);
        await host.setStatus('finished');
        return 'finished';
      }
      const corrective = {
        ...base('environment'),
        llm_message: { role: 'user' as const, content: [textContent(CORRECTIVE)] },
        activated_skills: [],
        extended_content: [],
        kind: 'MessageEvent' as const,
      };
      await host.emit([agentMessage as AnyEvent, corrective as AnyEvent]);
      return 'continue';
    }

    const actions = actionEvents(this.tools, response, calls, this.keepRisk);
    const finishing = actions.some(
      (a) => (a.event.action as { kind?: string } | null)?.kind === 'FinishAction',
    );
    if (this.critic && (this.critic.mode === 'all_actions' || finishing)) {
      const verdict = await this.judge(host, {
        kind: 'actions',
        calls: actions.map((a) => ({ tool: a.event.tool_name, arguments: a.event.tool_call.arguments })),
        eventIds: actions.map((a) => a.event.id),
      });
      for (const a of actions) Object.assign(a.event, verdict);
    }
    await host.emit(actions.map((a) => a.event));
    const errors = new Map(actions.filter((a) => a.error !== null).map((a) => [a.event.id, a.error!]));
    const valid = actions.filter((a) => a.error === null).map((a) => a.event);
    const risks = valid.map((e) => ({ toolName: e.tool_name, risk: e.security_risk ?? 'UNKNOWN' }));
    if (needsConfirmation(host.confirmationPolicy(), risks)) {
      // Calls that could not become actions are answered now; the valid ones wait for the user.
      await host.emit(actions.filter((a) => a.error !== null).map((a) => agentError(a.event, a.error!)));
      await host.setStatus('waiting_for_confirmation');
      return 'waiting_for_confirmation';
    }
    return this.execution.execute(
      host,
      actions.map((a) => a.event),
      errors,
    );
  }

  /**
   * Condenses the view when the condenser says so: emits the Condensation (the view applies it on the
   * next update). Null when nothing was condensed; `failed` after a failed summary call (reported as a
   * ConversationErrorEvent; the caller decides the status).
   */
  private async condenseIfNeeded(host: AgentHost): Promise<'continue' | 'interrupted' | 'failed' | null> {
    const reason = this.condenser?.reason(this.view, this.contextTokens);
    if (!this.condenser || !reason) return null;
    let condensation: AnyEvent | null;
    try {
      condensation = await this.condenser.condense(this.view, reason, host.signal);
    } catch (error) {
      if (host.signal.aborted) return 'interrupted';
      await this.reportFailure(host, error as Error);
      return 'failed';
    }
    if (!condensation) return null;
    await host.updateStats(this.stats());
    await host.emit([condensation]);
    this.view.update(host.events());
    this.contextTokens = null;
    return 'continue';
  }

  private async reportFailure(host: AgentHost, e: Error): Promise<void> {
    await host.emit([
      {
        ...base('environment'),
        code: e.name || 'Error',
        detail: e.message,
        kind: 'ConversationErrorEvent',
      } as AnyEvent,
    ]);
  }

  /** The critic's verdict as event members (`critic_result`), or nothing without a critic or a verdict. */
  private async judge(
    host: AgentHost,
    subject: Parameters<Critic['evaluate']>[1],
  ): Promise<{ critic_result?: CriticResult }> {
    if (!this.critic) return {};
    const result = await this.critic.evaluate(this.messages(host.events()), subject, host.signal);
    if (this.critic.llms.length > 0) await host.updateStats(this.stats());
    return result ? { critic_result: result } : {};
  }

  /** With `log_completions` on, each completion (or failure) becomes an LLMCompletionLogEvent. */
  private async logCompletion(
    host: AgentHost,
    request: { messages: LlmMessage[]; tools: LlmTool[] },
    outcome: { response: LlmResponse } | { error: Error },
  ): Promise<void> {
    if (!this.llm.config.log_completions) return;
    const secrets = Object.values(host.toolContext.secrets?.() ?? {});
    await host.emit([completionLogEvent(this.llm, request, outcome, secrets)]);
  }

  /**
   * Whether the agent may stop now. Stop hooks can refuse: their feedback goes to the agent as an
   * environment message and the run goes on.
   */
  async mayStop(host: AgentHost): Promise<boolean> {
    if (!this.hooks?.has('stop')) return true;
    const { stop, feedback, runs } = await this.hooks.stop('agent_finished', host.signal);
    await host.emit(hookExecutionEvents(runs));
    if (stop || host.signal.aborted) return true;
    if (feedback) {
      await host.emit([
        {
          ...base('environment'),
          llm_message: { role: 'user', content: [textContent(`[Stop hook feedback] ${feedback}`)] },
          activated_skills: [],
          extended_content: [],
          kind: 'MessageEvent',
        } as AnyEvent,
      ]);
    }
    await host.setStatus('running');
    return false;
  }

  /** A side question about the conversation: one LLM call, no events, no state change. */
  async ask(events: readonly AnyEvent[], question: string): Promise<string> {
    const history = new MessageView(this.tools).update(events);
    const messages: LlmMessage[] = [
      ...history,
      {
        role: 'user',
        content: [textContent(`${question}\n\n(Answer in plain text; do not call any tool.)`)],
      },
    ];
    const response = await this.llm.complete({ messages, tools: this.llmTools });
    return (response.message.content ?? []).map((c) => ('text' in c ? c.text : '')).join('');
  }

  /** OpenHands' /goal audit: the agent's LLM, asked apart, judges whether `objective` is done. */
  judgeGoal(events: readonly AnyEvent[], objective: string, signal?: AbortSignal): Promise<GoalVerdict> {
    return judgeGoal(this.llm, objective, new MessageView(this.tools).update(events), signal);
  }
}
