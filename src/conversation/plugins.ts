// A start's plugins (OpenHands' `plugins`: [{source, ref?, repo_path?}]) and the user's ambient ones
// (installed and enabled, or in their plugin folders), loaded before anything is stored (agent/plugins.ts) and merged into the agent as OpenHands' load_plugins merges them: skills
// by name (a later plugin's replaces an earlier one, and the agent's own), MCP servers by name (the
// same), hooks one after another (all run), sub-agent types after the client's. One that cannot be
// fetched or read is a 422 at its place.

import { Value } from 'typebox/value';
import {
  ambientPlugins,
  InvalidExtensionError,
  type LoadedPlugin,
  loadPlugin,
  SourceFetchError,
  type SourceSpec,
} from '../agent/index.js';
import { mergeHookConfigs } from '../hooks/index.js';
import { mapMcpValues, normalizeMcpServer, storedAgentMcp } from './agent-mcp.js';
import { McpServerSpec } from './agent-schemas.js';
import { skillSpec } from './context-skills.js';
import { InvalidConversationRequestError } from './errors.js';
import type { ConversationState } from './state.js';

/** A plugin a start loads: one it names (`attached`), or one of the user's ambient ones. */
export interface StartPlugin {
  plugin: LoadedPlugin;
  attached: boolean;
}

/**
 * The plugins of a start, in order (a 422 at `body.plugins.<i>` for one that cannot be had), then the
 * ambient ones of the user at `home` (agent/plugins.ts) whose names those do not have.
 */
export async function startPlugins(
  specs: readonly SourceSpec[] | null | undefined,
  cacheDir: string,
  home: string,
) {
  const loaded: StartPlugin[] = [];
  for (const [i, spec] of (specs ?? []).entries()) {
    try {
      loaded.push({ plugin: await loadPlugin(spec, cacheDir), attached: true });
    } catch (error) {
      if (!(error instanceof SourceFetchError || error instanceof InvalidExtensionError)) throw error;
      throw new InvalidConversationRequestError(['body', 'plugins', i], error.message);
    }
  }
  const named = new Set(loaded.map(({ plugin }) => plugin.name));
  const ambient = ambientPlugins(home).filter((plugin) => !named.has(plugin.name));
  return [...loaded, ...ambient.map((plugin) => ({ plugin, attached: false }))];
}

/**
 * The state with the plugins' skills, MCP servers (values sealed by `seal`) and hooks in it. A server
 * that is none is a 422 in a plugin the start names; an ambient plugin's is left out (a plugin in the
 * user's folders must not stop every start).
 */
export function withPlugins(
  state: ConversationState,
  loaded: readonly StartPlugin[],
  seal: (value: string) => string,
): ConversationState {
  if (loaded.length === 0) return state;
  const plugins = loaded.map(({ plugin }) => plugin);
  const context = state.agent.agent_context ?? {};
  const skills = new Map((context.skills ?? []).map((skill) => [skill.name, skill]));
  const servers = { ...storedAgentMcp(state.agent)?.mcpServers };
  loaded.forEach(({ plugin, attached }, i) => {
    for (const skill of plugin.skills) skills.set(skill.name, skillSpec(skill));
    for (const [name, server] of Object.entries(plugin.mcpServers)) {
      const loc = ['body', 'plugins', i, 'mcpServers', name];
      try {
        if (!Value.Check(McpServerSpec, server))
          throw new InvalidConversationRequestError(
            loc,
            `Plugin '${plugin.name}': not an MCP server (a command or a url)`,
          );
        const normalized = { mcpServers: { [name]: normalizeMcpServer(server, loc) } };
        Object.assign(servers, mapMcpValues(normalized, seal).mcpServers);
      } catch (error) {
        if (attached || !(error instanceof InvalidConversationRequestError)) throw error;
      }
    }
  });
  return {
    ...state,
    agent: {
      ...state.agent,
      agent_context: { ...context, skills: [...skills.values()] },
      ...(Object.keys(servers).length > 0 ? { mcp_config: { mcpServers: servers } } : {}),
    },
    ...(plugins.some((p) => p.hooks)
      ? { hook_config: mergeHookConfigs(state.hook_config, ...plugins.map((p) => p.hooks)) }
      : {}),
    // Their sub-agent types, after the client's (the first of a name wins when the task tool lists them).
    ...(plugins.some((p) => p.agents.length > 0)
      ? { agent_definitions: [...(state.agent_definitions ?? []), ...plugins.flatMap((p) => p.agents)] }
      : {}),
  };
}
