// OpenHands' switch_llm and switch_profile: a conversation's agent moves to another LLM from its next
// call on. The agent stored in the record changes (secrets sealed) with a ConversationStateUpdateEvent
// `agent`, as OpenHands emits it; the condenser moves too when it ran on the agent's model (OpenHands'
// `_condenser_for_switched_llm`), and a critic without an LLM of its own judges with the new one.
import { isDeepStrictEqual } from 'node:util';
import type { AgentSpec, LLMSpec } from './schemas.js';

/** Two LLM specs that differ at most in their usage id (the condenser's copy of the agent's model). */
function sameModel(a: LLMSpec, b: LLMSpec): boolean {
  const { usage_id: _a, ...left } = a;
  const { usage_id: _b, ...right } = b;
  return isDeepStrictEqual(left, right);
}

/** The agent after the switch to `llm` (sealed), and whether its condenser moved with it. */
export function switchedAgent(
  agent: AgentSpec,
  llm: LLMSpec,
): { agent: AgentSpec; condenserFollows: boolean } {
  const condenser = agent.condenser;
  const condenserFollows = Boolean(condenser?.llm && sameModel(condenser.llm, agent.llm));
  const next: AgentSpec = { ...agent, llm };
  if (condenser?.llm && condenserFollows)
    next.condenser = { ...condenser, llm: { ...llm, usage_id: condenser.llm.usage_id ?? 'condenser' } };
  return { agent: next, condenserFollows };
}
