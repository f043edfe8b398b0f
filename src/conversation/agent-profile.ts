// A start on an agent profile (OpenHands' `agent_profile_id`): the profile resolved, when the start
// is taken, into the agent settings it stands for — its LLM profile's LLM (with its key), its tools,
// the user's skills minus the ones it disables, its suffix, condenser and critic — and the settings'
// MCP servers it chooses. The conversation records which profile, at which revision, it started on.
import { userSkills } from '../agent/index.js';
import {
  AgentProfileNotFoundError,
  agentProfileSettings,
  mcpSelection,
  ProfileNotFoundError,
  type SettingsService,
} from '../settings/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { StartConversationRequest } from './schemas.js';
import type { ConversationState } from './state.js';

const LOC = ['body', 'agent_profile_id'];

export interface ProfiledStart {
  /** The request with the profile's agent settings in place of its id. */
  request: StartConversationRequest;
  /** What the conversation's state records of the profile (nothing without one). */
  state: Pick<ConversationState, 'launched_agent_profile' | 'settings_mcp_servers'>;
}

/**
 * The start as it runs: unchanged without `agent_profile_id`. A profile that is not the caller's is an
 * AgentProfileNotFoundError (404), as is an LLM profile it names that is gone; a MCP server it names
 * that the settings do not hold, or an agent given beside it, is a 422.
 */
export async function profiledStart(
  settings: SettingsService,
  userId: string,
  request: StartConversationRequest,
  skillsHome: string,
): Promise<ProfiledStart> {
  const id = request.agent_profile_id;
  if (id === undefined || id === null) return { request, state: {} };
  for (const member of ['agent', 'agent_settings', 'llm_model', 'llm_profile'] as const)
    if (request[member] !== undefined && request[member] !== null)
      throw new InvalidConversationRequestError(
        LOC,
        `\`agent_profile_id\` is mutually exclusive with \`${member}\`: the profile says what the agent runs on`,
      );
  const launch = await settings.agentProfileLaunch(userId, id).catch((error: unknown) => {
    if (!(error instanceof ProfileNotFoundError)) throw error;
    throw new AgentProfileNotFoundError(
      `Agent profile with id '${id}' runs on LLM profile '${error.profile}', which is not there`,
    );
  });
  const { profile } = launch;
  const mcp = mcpSelection(launch.mcp_config, profile.mcp_server_refs);
  if (mcp.dangling.length > 0)
    throw new InvalidConversationRequestError(
      LOC,
      `Agent profile '${profile.name}' names MCP servers the settings do not hold: ${mcp.dangling.join(', ')}`,
    );
  const agent_settings = agentProfileSettings(profile, launch.llm, userSkills(skillsHome));
  return {
    request: { ...request, agent_profile_id: null, agent_settings } as StartConversationRequest,
    state: {
      launched_agent_profile: { agent_profile_id: profile.id, revision: profile.revision },
      ...(profile.mcp_server_refs === null ? {} : { settings_mcp_servers: mcp.keys }),
    },
  };
}
