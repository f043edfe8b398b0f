// The calls that need a conversation's runtime go to the replica that holds it (cluster/). Their
// outcome travels as JSON; the domain errors come back as the same classes, so the HTTP answer on the
// receiving replica is the one the holder would have given.

import { PluginNotFoundError, PluginResolutionError } from '../agent/index.js';
import type { ForwardReply } from '../cluster/index.js';
import { LLMError } from '../llm/index.js';
import { ProfileNotFoundError, SecretKeyError } from '../settings/index.js';
import {
  CondenserUnavailableError,
  ConversationInSandboxError,
  ConversationNotFoundError,
  ConversationRunningError,
  GoalRunningError,
  InvalidConversationRequestError,
  NoResumableGoalError,
  UnknownEventError,
} from './errors.js';

/** The service methods forwarded to the holder; each takes (userId, conversationId, ...args). */
export const OWNED_OPS = [
  'sendMessage',
  'run',
  'settled',
  'pause',
  'interrupt',
  'respondToConfirmation',
  'setConfirmationPolicy',
  'setSecurityAnalyzer',
  'switchLlm',
  'switchProfile',
  'loadPlugin',
  'updateSecrets',
  'update',
  'navigate',
  'condense',
  'ask',
  'startGoal',
  'stopGoal',
  'resumeGoal',
  'delete',
] as const;
export type OwnedOp = (typeof OWNED_OPS)[number];

const KNOWN: readonly (abstract new (...args: never[]) => Error)[] = [
  ConversationNotFoundError,
  ConversationRunningError,
  InvalidConversationRequestError,
  ConversationInSandboxError,
  CondenserUnavailableError,
  GoalRunningError,
  NoResumableGoalError,
  UnknownEventError,
  LLMError,
  SecretKeyError,
  ProfileNotFoundError,
  PluginNotFoundError,
  PluginResolutionError,
];

/** The outcome of a call, ready to travel back. */
export async function replyOf(work: () => Promise<unknown>): Promise<ForwardReply> {
  try {
    return { ok: true, value: (await work()) ?? null };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(e)) if (key !== 'stack') fields[key] = value;
    return { ok: false, error: { name: e.name, message: e.message, fields } };
  }
}

/** The value of a forwarded call, or its error as the class the holder raised. */
export function unwrap<T>(reply: ForwardReply): T {
  if (reply.ok) return reply.value as T;
  const { name, message, fields } = reply.error;
  // An LLMError subclass (rate limit, timeout) is answered as any LLMError: the nearest known class.
  const known = KNOWN.find((c) => c.name === name) ?? (/LLM|RateLimit|Timeout/.test(name) ? LLMError : null);
  const error: Error = known ? Object.create(known.prototype) : new Error();
  Object.assign(error, fields, { name, message });
  throw error;
}
