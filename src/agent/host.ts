// What the agent needs from the conversation that runs it. The conversation layer implements it:
// it persists and publishes events and turns status changes into state events.
import type { AnyEvent } from '../events/index.js';
import type { LlmDelta } from '../llm/index.js';
import type { ToolContext } from '../tools/index.js';
import type { ConfirmationPolicy, ExecutionStatus } from './schemas.js';

export interface AgentHost {
  readonly conversationId: string;
  /** Every event so far, in order; the agent derives the LLM's view from it. */
  events(): readonly AnyEvent[];
  /** Persists and publishes events in order; resolves when they are durable. */
  emit(events: AnyEvent[]): Promise<void>;
  setStatus(status: ExecutionStatus): Promise<void>;
  /**
   * Each piece of the agent's LLM answer as it streams (only when its LLM has `stream: true`): sent
   * to live readers, not persisted. Optional: a host without live readers leaves it out.
   */
  streamDelta?(delta: LlmDelta): void;
  /**
   * Resolves when this conversation may go on using the event loop (`LoopTurns`): the agent asks
   * before each step and after each wait on the LLM or a tool, so the work of many conversations
   * interleaves with each other and with requests. Optional: a host alone on the loop leaves it out.
   */
  turn?(): Promise<void>;
  /** The OpenHands `stats` snapshot after each LLM call. */
  updateStats(stats: unknown): Promise<void>;
  confirmationPolicy(): ConfirmationPolicy;
  /** Checked between steps: the current step always finishes cleanly. */
  pauseRequested(): boolean;
  /** Aborted by an interrupt: cancels the LLM call or tool in flight. */
  readonly signal: AbortSignal;
  readonly toolContext: ToolContext;
  readonly status: ExecutionStatus;
}
