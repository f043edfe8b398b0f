// Which tools a conversation's agent gets: its spec's tools, then the built-ins it includes
// (OpenHands' `include_default_tools`, class names, default FinishTool and ThinkTool).
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
  const names = (agent.tools ?? []).map((t) => t.name);
  for (const builtin of agent.include_default_tools ?? DEFAULT_BUILTINS) names.push(registryName(builtin));
  return [...new Set(names)];
}
