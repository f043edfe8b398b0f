export { finishTool, thinkTool } from './builtins.js';
export { llmParameters, toolDefinition } from './define.js';
export { FileEditor, fileEditorTool } from './file-editor.js';
export { planningFileEditorTool } from './files/planning.js';
export { editTool, readFileTool, writeFileTool } from './files/read-write.js';
export { globTool, grepTool, listDirectoryTool } from './files/search.js';
export { McpTimeoutError, type McpToolCallResult } from './mcp/connect.js';
export {
  McpOAuthJobs,
  OAuthCallbackError,
  type OAuthJobLimits,
  type OAuthJobView,
  TooManyOAuthJobsError,
} from './mcp/oauth/jobs.js';
export { McpAuthorizationRequiredError, McpOAuthError } from './mcp/oauth/outbound.js';
export { McpOAuth, McpOAuthState } from './mcp/oauth/schemas.js';
export {
  hasValues as hasOAuthValues,
  keptOAuth,
  type McpOAuthServer,
  mapOAuthSecrets,
  OAUTH_SECRETS,
  type OAuthStateStore,
} from './mcp/oauth/state.js';
export { type McpLease, McpPool, type McpServers, probeMcpServer, testMcpServer } from './mcp/pool.js';
export { PathError, resolveInWorkspace } from './paths.js';
export { createTools, registeredToolNames, UnknownToolError } from './registry.js';
export {
  isTaskTool,
  type SubAgentPort,
  TASK_TOOL_NAMES,
  type TaskOutcome,
} from './task.js';
export { taskTrackerTool } from './task-tracker.js';
export { loadPty, sanitizedEnv } from './terminal/session.js';
export { terminalTool, truncate } from './terminal/tool.js';
export type { LlmContent, Tool, ToolContext, ToolOptions } from './types.js';
