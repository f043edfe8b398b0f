// The LLM configuration of a conversation is checked before anything of it is stored: a model string
// that routes nowhere, a provider prefix without the base URL it needs, a malformed base URL. A start
// that would fail on its first LLM call is a 422 naming the member (or the stored setting) instead,
// and no record, folder or event is left behind. (A key that cannot be sent is not refused here: the
// first call fails at once with an LLMAuthenticationError event, as for a key the provider rejects.)
import { type LLMConfigProblem, routingProblems } from '../llm/index.js';
import type { Settings } from '../settings/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { AgentSpec, LLMSpec } from './schemas.js';

/** The request's LLMs: the agent's, and the critic's and condenser's own when given. */
export function checkRequestedLLMs(agent: AgentSpec): void {
  checkLLM(agent.llm, ['body', 'agent', 'llm']);
  if (agent.critic?.llm) checkLLM(agent.critic.llm as LLMSpec, ['body', 'agent', 'critic', 'llm']);
  if (agent.condenser?.llm) checkLLM(agent.condenser.llm, ['body', 'agent', 'condenser', 'llm']);
}

/** An LLM that routes nowhere (or lacks the base URL its prefix needs) is a 422 at `loc`'s member. */
export function checkLLM(llm: LLMSpec, loc: string[]): void {
  const problem = routingProblems(llm)[0];
  if (problem) throw new InvalidConversationRequestError([...loc, problem.field], problem.message);
}

const SETTING_OF: Record<LLMConfigProblem['field'], string> = {
  model: 'llm_model',
  base_url: 'llm_base_url',
  api_key: 'llm_api_key',
};

/** The LLM of the user's stored settings, used when the request has no agent. */
export function checkSettingsLLM(settings: Pick<Settings, 'llm_model' | 'llm_base_url'>): void {
  const problem = routingProblems({ model: settings.llm_model ?? '', base_url: settings.llm_base_url })[0];
  if (!problem) return;
  const setting = SETTING_OF[problem.field];
  throw new InvalidConversationRequestError(
    ['body', 'agent'],
    `No agent given, and the LLM in the stored settings cannot be used: ${problem.message}. Fix the setting ${setting} (POST /api/settings), or send agent.llm`,
  );
}
