// OpenHands' `agent_settings` in a start: the SDK's AgentSettings (what GET /api/settings answers as
// `agent_settings`), from which the agent is built when the request has no `agent`, as the SDK's
// `create_agent()` builds it: its LLM, its tools (the default set when none are named), MCP servers,
// context, tool concurrency, and the condenser its settings describe (OpenHands' settings defaults:
// on, 240 events, the first 2 kept) and the critic its verification settings enable. A start on an
// agent profile (`agent_profile_id`) comes here too, as the settings the profile resolves to
// (agent-profile.ts).
import { type AgentSettings, defaultToolNames } from './agent-schemas.js';
import { InvalidConversationRequestError } from './errors.js';
import type { AgentSpec, StartConversationRequest } from './schemas.js';

/** OpenHands' condenser settings defaults (LLMSummarizingCondenserSettings). */
const SETTINGS_CONDENSER = { max_size: 240, keep_first: 2 } as const;

const KINDS = new Set(['openhands', 'llm']);

/** The agent a start runs: its `agent`, or one built from its `agent_settings`; undefined for neither. */
export function requestedAgent(request: StartConversationRequest): AgentSpec | undefined {
  if (request.agent || !request.agent_settings) return request.agent;
  return agentFromSettings(request.agent_settings as AgentSettings);
}

function agentFromSettings(settings: AgentSettings): AgentSpec {
  const kind = settings.agent_kind ?? 'openhands';
  if (!KINDS.has(kind))
    throw new InvalidConversationRequestError(
      ['body', 'agent_settings', 'agent_kind'],
      `agentd runs OpenHands agents only ('openhands'), not '${kind}'`,
    );
  const c = settings.condenser ?? {};
  const condenser =
    c.enabled === false || c.condenser_kind === 'no_op'
      ? null
      : {
          kind: 'LLMSummarizingCondenser',
          max_size: c.max_size ?? SETTINGS_CONDENSER.max_size,
          keep_first: c.keep_first ?? SETTINGS_CONDENSER.keep_first,
          max_tokens: c.max_tokens ?? null,
        };
  // OpenHands' create_agent(): no tools named (null) is the default set (with the task tool when
  // sub-agents are enabled); a list, [] included, is used as given.
  const agent: AgentSpec = {
    kind: 'Agent',
    llm: settings.llm,
    tools: settings.tools ?? defaultToolNames(settings.enable_sub_agents).map((name) => ({ name })),
    condenser,
  };
  if (settings.mcp_config) agent.mcp_config = settings.mcp_config;
  if (settings.agent_context) agent.agent_context = settings.agent_context;
  if (settings.tool_concurrency_limit) agent.tool_concurrency_limit = settings.tool_concurrency_limit;
  // OpenHands' critic (verification.critic_enabled) is agentd's LLMCritic, on the agent's LLM.
  const verification = settings.verification;
  if (verification?.critic_enabled)
    agent.critic = { kind: 'LLMCritic', mode: verification.critic_mode ?? 'finish_and_message' };
  return agent;
}
