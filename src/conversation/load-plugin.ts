// OpenHands' load_plugin: a plugin from the conversation's registered marketplaces
// (agent_context.registered_marketplaces) joins it after its start — resolved there
// (agent/marketplace-registry.ts), fetched and read as a start's plugins are, and merged into the
// stored agent the same way (plugins.ts). The service then rebuilds the conversation's runtime on its
// next use, with the plugin's skills, MCP servers and hooks (a shell it had starts afresh, as after
// its idle time).
import {
  InvalidExtensionError,
  type LoadedPlugin,
  loadPlugin,
  type MarketplaceRegistration,
  type MarketplaceRegistry,
  PluginResolutionError,
  SourceFetchError,
} from '../agent/index.js';
import { InvalidConversationRequestError } from './errors.js';
import { withPlugins } from './plugins.js';
import type { ConversationState } from './state.js';

/** The plugin `pluginRef` names, fetched and read; PluginNotFoundError, PluginResolutionError. */
export async function marketplacePlugin(
  state: ConversationState,
  pluginRef: string,
  registry: MarketplaceRegistry,
  cacheDir: string,
): Promise<LoadedPlugin> {
  const registrations = (state.agent.agent_context?.registered_marketplaces ??
    []) as MarketplaceRegistration[];
  const spec = await registry.resolve(pluginRef, registrations);
  try {
    return await loadPlugin(spec, cacheDir);
  } catch (error) {
    if (!(error instanceof SourceFetchError || error instanceof InvalidExtensionError)) throw error;
    throw new PluginResolutionError(`Plugin '${pluginRef}': ${error.message}`);
  }
}

/** The state with the plugin merged in; PluginResolutionError when one of its MCP servers is none. */
export function withLoadedPlugin(
  state: ConversationState,
  plugin: LoadedPlugin,
  seal: (value: string) => string,
): ConversationState {
  try {
    return withPlugins(state, [{ plugin, attached: true }], seal);
  } catch (error) {
    if (!(error instanceof InvalidConversationRequestError)) throw error;
    throw new PluginResolutionError(error.message);
  }
}
