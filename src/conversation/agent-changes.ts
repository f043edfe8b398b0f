// Changes to a conversation's agent and policies, where the conversation is owned: its confirmation
// policy and security analyzer, the LLM it runs on (OpenHands' switch_llm and switch_profile,
// switch-llm.ts), a plugin from its registered marketplaces (load_plugin, load-plugin.ts), and its
// secrets.
import { join } from 'node:path';
import { MarketplaceRegistry } from '../agent/index.js';
import { mapLlmSecrets } from '../llm/index.js';
import { ConversationRunningError } from './errors.js';
import { ConversationGoals } from './goals.js';
import { checkLLM } from './llm-checks.js';
import { marketplacePlugin, withLoadedPlugin } from './load-plugin.js';
import { switchedLlms } from './runtime-builder.js';
import type { ConfirmationPolicy, LLMSpec } from './schemas.js';
import { sealSecrets } from './secrets.js';
import { maskedAgent, stateOf } from './state.js';
import { switchedAgent } from './switch-llm.js';

export abstract class ConversationAgentChanges extends ConversationGoals {
  /** The registered marketplaces' repositories, kept in `<data>/marketplaces` (load_plugin). */
  private readonly marketplaces = new MarketplaceRegistry(
    join(this.options.dataDir, 'marketplaces'),
    (line) => this.options.logger?.warn({}, line),
  );

  async setConfirmationPolicy(userId: string, id: string, policy: ConfirmationPolicy): Promise<void> {
    return this.onOwner('setConfirmationPolicy', userId, id, [policy], async () => {
      const runtime = await this.runtime(userId, id);
      await runtime.changeState('confirmation_policy', policy, (state) => ({
        ...state,
        confirmation_policy: policy,
      }));
    });
  }

  async setSecurityAnalyzer(
    userId: string,
    id: string,
    analyzer: Record<string, unknown> | null,
  ): Promise<void> {
    return this.onOwner('setSecurityAnalyzer', userId, id, [analyzer], async () => {
      const runtime = await this.runtime(userId, id);
      await runtime.changeState('security_analyzer', analyzer, (state) => ({
        ...state,
        security_analyzer: analyzer,
      }));
      runtime.agent.setSecurityAnalyzer(analyzer?.kind === 'LLMSecurityAnalyzer');
    });
  }

  /** OpenHands' switch_llm: the agent's next LLM calls go to `llm` (see switch-llm.ts). */
  async switchLlm(userId: string, id: string, llm: LLMSpec): Promise<void> {
    // A model agentd cannot route is refused before anything changes, as at a start.
    checkLLM(llm, ['body', 'llm']);
    return this.onOwner('switchLlm', userId, id, [llm], () => this.switchHere(userId, id, async () => llm));
  }

  /**
   * OpenHands' switch_profile: the same, to the caller's saved LLM profile `name` (ProfileNotFoundError),
   * under the usage id `profile:<name>`, so its spend is counted apart, as OpenHands counts it.
   */
  async switchProfile(userId: string, id: string, name: string): Promise<void> {
    return this.onOwner('switchProfile', userId, id, [name], () =>
      this.switchHere(userId, id, async () => ({
        ...(await this.options.settings.profileLlm(userId, name)),
        usage_id: `profile:${name}`,
      })),
    );
  }

  /** The switch, once the conversation is known to be the caller's (its 404 comes before a profile's). */
  private async switchHere(userId: string, id: string, llmOf: () => Promise<LLMSpec>): Promise<void> {
    const runtime = await this.runtime(userId, id);
    const sealed = mapLlmSecrets(await llmOf(), (value) => this.options.secretBox.encrypt(value));
    const { agent, condenserFollows } = switchedAgent(runtime.state.agent, sealed);
    const llms = switchedLlms(this.options, this.logFor(id), { ...runtime.state, agent }, condenserFollows);
    await runtime.changeState('agent', maskedAgent(agent), (state) => ({ ...state, agent }));
    runtime.agent.switchLlms(llms);
  }

  /**
   * OpenHands' load_plugin (load-plugin.ts): the plugin joins the stored agent and the runtime is
   * rebuilt on its next use. Not while a run is going (ConversationRunningError).
   */
  async loadPlugin(userId: string, id: string, pluginRef: string): Promise<void> {
    return this.onOwner('loadPlugin', userId, id, [pluginRef], async () => {
      const record = await this.local(userId, id);
      const cacheDir = join(this.options.dataDir, 'plugins');
      const plugin = await marketplacePlugin(stateOf(record), pluginRef, this.marketplaces, cacheDir);
      // Checked after the fetch, which may take a while, from the state as it is now.
      const runtime = this.runtimes.get(id);
      const current = runtime?.record ?? (await this.local(userId, id));
      if (runtime?.running || current.executionStatus === 'running') throw new ConversationRunningError(id);
      const next = withLoadedPlugin(stateOf(current), plugin, (value) =>
        this.options.secretBox.encrypt(value),
      );
      if (!runtime) {
        const state = next as unknown as Record<string, unknown>;
        await this.store.conversations.update(id, { state, updatedAt: new Date().toISOString() });
        return;
      }
      await runtime.changeState('agent', maskedAgent(next.agent), () => next);
      this.runtimes.delete(id);
      await runtime.close();
    });
  }

  async updateSecrets(userId: string, id: string, secrets: Record<string, unknown>): Promise<void> {
    return this.onOwner('updateSecrets', userId, id, [secrets], async () => {
      const record = await this.local(userId, id);
      const state = stateOf(record);
      const next = {
        ...state,
        secrets: { ...state.secrets, ...sealSecrets(this.options.secretBox, secrets) },
      };
      await this.store.conversations.update(id, { state: next as unknown as Record<string, unknown> });
      const runtime = this.runtimes.get(id);
      if (runtime) runtime.record = { ...runtime.record, state: next as unknown as Record<string, unknown> };
    });
  }
}
