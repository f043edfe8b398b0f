// The wire shapes the UI reads (a subset of agentd's; src/events and src/conversation hold the whole).
export interface ConversationInfo {
  id: string;
  title: string | null;
  execution_status: string;
  updated_at: string;
  created_at: string;
  workspace: { working_dir: string };
  confirmation_policy: { kind: string };
  stats?: Stats;
  agent?: { llm?: { model?: string } };
  /** The conversation this one was started under (OpenHands' parent link). */
  parent_conversation_id?: string | null;
  sub_conversation_ids?: string[];
  /** A sub-agent task's conversation carries `taskid` and `subagent`. */
  tags?: Record<string, string>;
}

/** A /goal loop's status: the `value` of a ConversationStateUpdateEvent `goal`. */
export interface GoalStatus {
  active: boolean;
  status: 'running' | 'complete' | 'capped' | 'interrupted';
  iteration: number;
  max_iterations: number;
  objective: string;
  verdict: { score: number; complete: boolean; missing: string } | null;
}

export interface Stats {
  usage_to_metrics?: Record<
    string,
    {
      accumulated_cost?: number;
      accumulated_token_usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
    }
  >;
}

export interface TextPart {
  type: string;
  text?: string;
}

/** An event: the members every kind has, the rest read by kind where it is rendered. */
export interface Ev {
  id: string;
  kind: string;
  source?: string;
  timestamp?: string;
  [member: string]: unknown;
}

export interface Settings {
  llm_model: string | null;
  llm_base_url: string | null;
  llm_api_key_set?: boolean;
  search_api_key_set?: boolean;
  confirmation_mode: boolean | null;
  max_iterations: number | null;
  enable_default_condenser: boolean;
  condenser_max_size?: number | null;
  enable_sub_agents?: boolean;
  mcp_config?: McpConfig | null;
  [member: string]: unknown;
}

/**
 * A remote server. `name`: the key an OpenHands client saved it under (/api/settings/mcp/{key}), if
 * any; `oauth`: signed in with OAuth (its tokens are never shown: null here).
 */
export interface RemoteMcpServer {
  name?: string;
  url: string;
  api_key?: string | null;
  oauth?: Record<string, unknown> | null;
}

export interface McpConfig {
  sse_servers?: RemoteMcpServer[];
  shttp_servers?: RemoteMcpServer[];
  stdio_servers?: { name: string; command: string; args?: string[]; env?: Record<string, string> }[];
}

/** GET /api/profiles: the saved LLMs (no key), and the one in use. */
export interface ProfileList {
  profiles: {
    name: string;
    model: string | null;
    base_url: string | null;
    api_key_set: boolean;
    /** The shared key it uses (/api/llm/provider-connections), if any. */
    provider_connection_id?: string | null;
  }[];
  active_profile: string | null;
}

/** GET /api/agent-profiles: the caller's agent profiles and the active one's id. */
export interface AgentProfileList {
  profiles: {
    id: string;
    name: string;
    revision: number;
    llm_profile_ref: string | null;
    mcp_server_refs: string[] | null;
  }[];
  active_agent_profile_id: string | null;
}

/** GET /api/mcp/oauth/status/{job_id} (OpenHands' MCPOAuthStatusResponse). */
export interface McpOAuthStatus {
  ok: boolean;
  status: 'pending' | 'authorizing' | 'succeeded' | 'failed';
  job_id: string;
  authorization_url?: string;
  tools?: string[];
  /** What to keep under the server's auth.state (its secrets sealed: they open only on this server). */
  oauth_state?: Record<string, unknown>;
  error?: string;
}
