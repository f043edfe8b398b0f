// Which tools a conversation's agent gets: its spec's tools, then the built-ins it includes
// (OpenHands' `include_default_tools`, class names, default FinishTool and ThinkTool), and what
// `filter_tools_regex` keeps of the spec's and the MCP servers' tools.
import { InvalidConversationRequestError } from './errors.js';
import type { AgentSpec } from './schemas.js';

const DEFAULT_BUILTINS = ['FinishTool', 'ThinkTool'];

/** OpenHands' registry name for a tool class name: snake_case without the `_tool` suffix. */
export function registryName(className: string): string {
  return className
    .replace(/Tool$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

export function toolNamesOf(agent: AgentSpec): string[] {
  return [...new Set([...(agent.tools ?? []).map((t) => t.name), ...defaultToolNamesOf(agent)])];
}

/** The names of the built-ins the agent includes, which `filter_tools_regex` leaves alone (as OpenHands). */
function defaultToolNamesOf(agent: AgentSpec): Set<string> {
  return new Set((agent.include_default_tools ?? DEFAULT_BUILTINS).map(registryName));
}

/**
 * `filter_tools_regex` as OpenHands applies it (Python's `re.match`: a match at the start of the name);
 * null without one. A pattern JavaScript cannot read is a 422.
 */
export function toolFilterOf(agent: AgentSpec): RegExp | null {
  const pattern = agent.filter_tools_regex;
  if (typeof pattern !== 'string') return null;
  try {
    return new RegExp(`^(?:${pattern})`);
  } catch (error) {
    throw new InvalidConversationRequestError(
      ['body', 'agent', 'filter_tools_regex'],
      `Not a regular expression agentd can read: ${(error as Error).message}`,
    );
  }
}

/** The tools the agent keeps: the built-ins it includes, and the others whose name the filter matches. */
export function filterTools<T extends { name: string }>(agent: AgentSpec, tools: T[]): T[] {
  const filter = toolFilterOf(agent);
  if (!filter) return tools;
  const defaults = defaultToolNamesOf(agent);
  return tools.filter((t) => defaults.has(t.name) || filter.test(t.name));
}
