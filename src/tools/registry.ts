// The tool registry: registry names (OpenHands': TerminalTool → terminal) to factories. Each
// conversation gets its own instances, so its shell and editor history are its own.
import { tmpdir } from 'node:os';
import { BrowserSession } from './browser/session.js';
import { BROWSER_TOOL_NAMES, browserTools } from './browser/tools.js';
import { finishTool, thinkTool } from './builtins.js';
import { fileEditorTool } from './file-editor.js';
import { planningFileEditorTool } from './files/planning.js';
import { editTool, readFileTool, writeFileTool } from './files/read-write.js';
import { globTool, grepTool, listDirectoryTool } from './files/search.js';
import { applyPatchTool } from './patch/tool.js';
import { isTaskTool, type SubAgentPort, TASK_TOOL_NAMES, taskTool } from './task.js';
import { taskTrackerTool } from './task-tracker.js';
import { terminalTool } from './terminal/tool.js';
import type { Tool, ToolOptions } from './types.js';

const FACTORIES: Record<string, (options: ToolOptions) => Tool> = {
  terminal: (o) => terminalTool(o) as Tool,
  file_editor: (o) => fileEditorTool(o) as Tool,
  apply_patch: (o) => applyPatchTool(o) as Tool,
  task_tracker: () => taskTrackerTool() as Tool,
  read_file: (o) => readFileTool(o) as Tool,
  write_file: (o) => writeFileTool(o) as Tool,
  edit: (o) => editTool(o) as Tool,
  list_directory: (o) => listDirectoryTool(o) as Tool,
  glob: (o) => globTool(o) as Tool,
  grep: (o) => grepTool(o) as Tool,
  planning_file_editor: (o) => planningFileEditorTool(o) as Tool,
  finish: () => finishTool() as Tool,
  think: () => thinkTool() as Tool,
};

const BROWSER_NAMES = ['browser_tool_set', ...BROWSER_TOOL_NAMES];

export function registeredToolNames(): string[] {
  return [...Object.keys(FACTORIES), ...BROWSER_NAMES, ...TASK_TOOL_NAMES];
}

export class UnknownToolError extends Error {
  override name = 'UnknownToolError';
}

/**
 * New instances of the named tools, in order, without duplicates. The browser tools of one call share
 * one browser, started on first use; its recordings go to `persistenceDir`. The task tool (either of
 * its names) runs its sub-agents through `subAgents`, which its conversation gives.
 */
export function createTools(
  names: readonly string[],
  options: ToolOptions = {},
  persistenceDir = tmpdir(),
  subAgents?: SubAgentPort,
): Tool[] {
  const unique = [...new Set(names)];
  const browserNames = unique.filter((n) => BROWSER_NAMES.includes(n));
  const taskName = unique.find(isTaskTool);
  let session: BrowserSession | null = null;
  const tools: Tool[] = [];
  for (const name of unique) {
    if (isTaskTool(name)) {
      if (name !== taskName) continue;
      if (!subAgents)
        throw new UnknownToolError(
          `The ${name} tool runs only in a conversation (it has no sub-agents here)`,
        );
      tools.push(taskTool(subAgents) as Tool);
      continue;
    }
    if (BROWSER_NAMES.includes(name)) {
      if (name === browserNames[0]) {
        tools.push(
          ...browserTools(browserNames, () => {
            session ??= new BrowserSession(persistenceDir);
            return session;
          }),
        );
      }
      continue;
    }
    const factory = FACTORIES[name];
    if (!factory)
      throw new UnknownToolError(`Unknown tool: ${name}. Registered: ${registeredToolNames().join(', ')}`);
    tools.push(factory(options));
  }
  return tools;
}
