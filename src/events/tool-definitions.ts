// The ToolDefinition union (items of SystemPromptEvent `tools`): 30 kinds. OpenHands serializes a
// tool as its description, the Action/Observation class names, MCP-style annotations, optional meta,
// its class name as `kind` and its name as `title` (there is no `name` member).
import { Type } from 'typebox';
import { Closed, KindUnion, Nullable } from './schema-helpers.js';

export const ToolAnnotations = Type.Object(
  {
    title: Type.Optional(Nullable(Type.String())),
    readOnlyHint: Type.Optional(Type.Boolean({ default: false })),
    destructiveHint: Type.Optional(Type.Boolean({ default: true })),
    idempotentHint: Type.Optional(Type.Boolean({ default: false })),
    openWorldHint: Type.Optional(Type.Boolean({ default: true })),
  },
  { title: 'ToolAnnotations' },
);

const common = {
  description: Type.String(),
  action_type: Type.String(),
  observation_type: Type.Optional(Nullable(Type.String())),
  annotations: Type.Optional(Nullable(ToolAnnotations)),
  meta: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  title: Type.String(),
};

function tool<K extends string>(kind: K) {
  return Closed({ ...common, kind: Type.Literal(kind) }, { title: kind });
}

export const MCPToolDefinition = Closed(
  {
    ...common,
    mcp_tool: Type.Object(
      {
        name: Type.String(),
        description: Type.Optional(Nullable(Type.String())),
        inputSchema: Type.Record(Type.String(), Type.Unknown()),
      },
      { additionalProperties: true },
    ),
    kind: Type.Literal('MCPToolDefinition'),
  },
  { title: 'MCPToolDefinition' },
);

export const TOOL_DEFINITION_KINDS = [
  'FinishTool',
  'ThinkTool',
  'BrowserClickTool',
  'BrowserCloseTabTool',
  'BrowserGetContentTool',
  'BrowserGetStateTool',
  'BrowserGetStorageTool',
  'BrowserGoBackTool',
  'BrowserListTabsTool',
  'BrowserNavigateTool',
  'BrowserScrollTool',
  'BrowserSetStorageTool',
  'BrowserStartRecordingTool',
  'BrowserStopRecordingTool',
  'BrowserSwitchTabTool',
  'BrowserToolSet',
  'BrowserTypeTool',
  'FileEditorTool',
  'EditTool',
  'ListDirectoryTool',
  'ReadFileTool',
  'WriteFileTool',
  'GlobTool',
  'GrepTool',
  'PlanningFileEditorTool',
  'ApplyPatchTool',
  'TaskTrackerTool',
  'TaskTool',
  'TerminalTool',
] as const;

export const TOOL_DEFINITION_VARIANTS = [MCPToolDefinition, ...TOOL_DEFINITION_KINDS.map(tool)];

export const ToolDefinition = KindUnion('ToolDefinition', TOOL_DEFINITION_VARIANTS);
