// The tool port. A tool is what the agent can call: its wire definition (for SystemPromptEvent),
// the JSON Schema of its arguments (for the LLM), the Action kind it accepts and an executor that
// returns the wire Observation. Per-conversation resources (a shell) are released by close().
import type { Static, TSchema } from 'typebox';
import type { Content, ToolDefinition } from '../events/index.js';

export interface ToolContext {
  /** The conversation's workspace; relative paths and the shell start here. */
  workingDir: string;
  conversationId: string;
  /** Per-conversation folder for saved full outputs and tool state (task list). */
  persistenceDir: string;
  /** Aborted when the conversation is interrupted or closed. */
  signal: AbortSignal;
  /** The conversation's secrets in clear (exported into the shell, masked in outputs). */
  secrets?: () => Record<string, string>;
  /**
   * All the secrets, fetching those looked up from a URL (LookupSecret) not fetched yet; what a new
   * shell exports. Rejects with a message fit for the agent when a lookup fails.
   */
  resolveSecrets?: () => Promise<Record<string, string>>;
}

export type LlmContent = Static<typeof Content>;
export type ToolDefinitionWire = Static<typeof ToolDefinition>;

export interface Tool<A = unknown, O = unknown> {
  /** Registry name, e.g. `terminal`. */
  readonly name: string;
  /** The Action kind the tool accepts, e.g. `TerminalAction`. */
  readonly actionKind: string;
  /** The Action schema (validation and defaults of the call arguments). */
  readonly actionSchema: TSchema;
  readonly definition: ToolDefinitionWire;
  /** Read-only tools take no `security_risk` argument. */
  readonly readOnly: boolean;
  /**
   * Calls of this tool may overlap (each works on something of its own, as a sub-agent task does);
   * by default a tool runs one call at a time (one shell never runs two commands together).
   */
  readonly concurrent?: boolean;
  execute(action: A, ctx: ToolContext): Promise<O>;
  /** The LLM's argument schema, when it is not derived from the Action schema (MCP tools). */
  readonly parameters?: Record<string, unknown>;
  /** Turns the LLM's arguments into the Action; default: the arguments plus `kind`. */
  buildAction?(args: Record<string, unknown>): unknown;
  /** What the LLM sees of an observation; default: its `content`. */
  toLlmContent?(observation: O): LlmContent[];
  close?(): Promise<void>;
}

export interface ToolOptions {
  /** Terminal: seconds without new output before a command is reported as still running. */
  noChangeTimeoutSeconds?: number;
  /**
   * Terminal: seconds a shell may sit unused before it is closed (default 60); the next command
   * starts a new one in the same directory. A shell with a command or background job running stays.
   */
  terminalIdleSeconds?: number;
  /** File tools: accept paths outside the conversation's working directory (default: refuse them). */
  allowPathsOutsideWorkspace?: boolean;
}
