// Where the OAuth state of a conversation's own MCP servers (its agent.mcp_config) is kept: in the
// conversation's record, sealed like the rest of the agent, so a token refreshed mid-conversation is
// the one its runtime finds after a restart. A refresh is written as a state change of the
// conversation (a ConversationStateUpdateEvent `agent`, masked), in the turn state changes take.
// While the runtime is being built its connections may already refresh: a start that is creating
// the conversation keeps the new state in the record it is about to store; a runtime being rebuilt
// writes it once it exists.
import type { Logger } from '../llm/index.js';
import { SecretBox } from '../settings/index.js';
import type { ConversationRecord } from '../store/index.js';
import { mapOAuthSecrets, type OAuthStateStore } from '../tools/index.js';
import { storedAgentMcp } from './agent-mcp.js';
import type { ConversationRuntime } from './runtime.js';
import { type ConversationState, maskedAgent, stateOf } from './state.js';

type McpOAuthState = Parameters<Parameters<OAuthStateStore['update']>[0]>[0];

export class ConversationOAuthState {
  private runtime: ConversationRuntime | null = null;
  /** Writes waiting for the runtime (one being rebuilt). */
  private waiting: ((runtime: ConversationRuntime) => void)[] = [];
  /** One update at a time: each reads what the one before wrote. */
  private turn: Promise<void> = Promise.resolve();

  /** `creating`: the record is a start's, not stored yet (it is stored with what it holds then). */
  constructor(
    private readonly record: ConversationRecord,
    private readonly creating: boolean,
    private readonly box: Pick<SecretBox, 'encrypt' | 'decrypt'>,
    private readonly logger: Logger,
  ) {}

  /** The runtime is built: writes go through it from now on. */
  attach(runtime: ConversationRuntime): void {
    this.runtime = runtime;
    for (const write of this.waiting.splice(0)) write(runtime);
  }

  /** The store of the agent's server `name`. */
  store(name: string): OAuthStateStore {
    return {
      id: `conversation:${this.record.id}:${name}`,
      update: (change) => {
        const next = this.turn.then(async () => {
          const current = this.stored(name);
          const state = await change(current);
          if (state && current !== null) this.write(name, state);
        });
        this.turn = next.catch(() => undefined);
        return next;
      },
    };
  }

  /** The server's state as the record holds it now, opened; null when the agent has no such OAuth server. */
  private stored(name: string): McpOAuthState | null {
    const state = stateOf(this.runtime?.record ?? this.record);
    const oauth = storedAgentMcp(state.agent)?.mcpServers?.[name]?.oauth;
    if (!oauth) return null;
    // Conversations stored before OAuth servers were sealed do not exist; a value not sealed is as given.
    const open = (v: string) => (SecretBox.isSealed(v) ? this.box.decrypt(v) : v);
    return mapOAuthSecrets(oauth, open).state ?? {};
  }

  private write(name: string, next: McpOAuthState): void {
    const sealed = mapOAuthSecrets({ state: next }, (v) => this.box.encrypt(v)).state ?? null;
    const change = (state: ConversationState): ConversationState => {
      const servers = storedAgentMcp(state.agent)?.mcpServers;
      const server = servers?.[name];
      if (!servers || !server?.oauth) return state;
      const mcpServers = { ...servers, [name]: { ...server, oauth: { ...server.oauth, state: sealed } } };
      return { ...state, agent: { ...state.agent, mcp_config: { mcpServers } } };
    };
    const viaRuntime = (runtime: ConversationRuntime) => {
      const agent = change(runtime.state).agent;
      runtime
        .changeState('agent', maskedAgent(agent), change)
        .catch((error: unknown) =>
          this.logger.warn(
            { conversation_id: this.record.id, error: (error as Error).message },
            `the refreshed OAuth tokens of MCP server ${name} could not be kept`,
          ),
        );
    };
    if (this.runtime) viaRuntime(this.runtime);
    else if (this.creating)
      this.record.state = change(stateOf(this.record)) as unknown as Record<string, unknown>;
    else this.waiting.push(viaRuntime);
  }
}
