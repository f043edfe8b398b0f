// Which condenser a conversation's agent gets. Decided once, at start, and kept in the agent (as
// OpenHands' agent JSON carries it): the request's `agent.condenser` when it has one (null or
// NoOpCondenser: none), otherwise the user's settings: `enable_default_condenser` (default on) with
// `condenser_max_size` (default 120) and keep_first 4, as OpenHands' app server builds its default.
import { condenserProblem } from '../agent/index.js';
import { mapLlmSecrets } from '../llm/index.js';
import type { Settings } from '../settings/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { AgentSpec, CondenserSpec } from './schemas.js';

export const DEFAULT_CONDENSER_MAX_SIZE = 120;
export const DEFAULT_CONDENSER_KEEP_FIRST = 4;
const SUMMARIZING = 'LLMSummarizingCondenser';

/**
 * The condenser to store in the agent, or null. The agent's LLM secrets are already sealed; `seal`
 * seals those of a condenser LLM given in the request (mapLlmSecrets, llm/secrets.ts), so none is stored in clear.
 */
export function resolveCondenser(
  agent: AgentSpec,
  settings: Settings | null,
  seal: (key: string) => string,
): CondenserSpec | null {
  const agentLlm = { ...agent.llm, usage_id: 'condenser' };
  let spec: CondenserSpec;
  if (agent.condenser !== undefined) {
    const requested = agent.condenser;
    if (requested === null || requested.kind === 'NoOpCondenser') return null;
    if (requested.kind !== SUMMARIZING)
      throw new InvalidConversationRequestError(
        ['body', 'agent', 'condenser', 'kind'],
        `Unsupported condenser '${requested.kind}': agentd has ${SUMMARIZING} (and NoOpCondenser for none)`,
      );
    const llm = requested.llm ? mapLlmSecrets(requested.llm, seal) : agentLlm;
    spec = {
      ...requested,
      llm,
      max_size: requested.max_size ?? DEFAULT_CONDENSER_MAX_SIZE,
      keep_first: requested.keep_first ?? DEFAULT_CONDENSER_KEEP_FIRST,
    };
  } else {
    const fromSettings = condenserFromSettings(settings);
    if (!fromSettings) return null;
    spec = { ...fromSettings, llm: agentLlm };
  }
  const problem = condenserProblem(spec.max_size!, spec.keep_first!);
  if (problem) throw new InvalidConversationRequestError(['body', 'agent', 'condenser'], problem);
  return spec;
}

/**
 * The condenser the user's settings ask for, or null for none: without `llm`, so the agent's LLM
 * writes the summaries (a V1 start sends it to the sandbox's agent server, whose settings are not the user's).
 */
export function condenserFromSettings(settings: Settings | null): CondenserSpec | null {
  if (settings?.enable_default_condenser === false) return null;
  return {
    kind: SUMMARIZING,
    max_size: settings?.condenser_max_size ?? DEFAULT_CONDENSER_MAX_SIZE,
    keep_first: DEFAULT_CONDENSER_KEEP_FIRST,
  };
}
