export { finishTool, thinkTool } from './builtins.js';
export { llmParameters, toolDefinition } from './define.js';
export { FileEditor, fileEditorTool } from './file-editor.js';
export { createTools, registeredToolNames, UnknownToolError } from './registry.js';
export { taskTrackerTool } from './task-tracker.js';
export { terminalTool, truncate } from './terminal/tool.js';
export type { LlmContent, Tool, ToolContext, ToolOptions } from './types.js';
