// The Action union (member `action` of ActionEvent): 30 kinds. Members as the spec shows them and,
// where it says "not shown", as OpenHands defines them. Unknown members are rejected.
import { type TProperties, Type } from 'typebox';
import { Closed, KindUnion, Nullable } from './schema-helpers.js';

function action<K extends string, P extends TProperties>(kind: K, properties: P) {
  return Closed({ ...properties, kind: Type.Literal(kind) }, { title: kind });
}

const TabId = Type.String({
  minLength: 4,
  maxLength: 4,
  description: '4-character tab id from the tab listing',
});
const ElementIndex = Type.Integer({
  minimum: 0,
  description: 'Element index from the browser state listing',
});
const NewTab = Type.Optional(Type.Boolean({ default: false }));

export const MCPToolAction = action('MCPToolAction', {
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {} })),
});
export const FinishAction = action('FinishAction', { message: Type.String() });
export const ThinkAction = action('ThinkAction', { thought: Type.String() });

export const BrowserAction = action('BrowserAction', {});
export const BrowserClickAction = action('BrowserClickAction', { index: ElementIndex, new_tab: NewTab });
export const BrowserCloseTabAction = action('BrowserCloseTabAction', { tab_id: TabId });
export const BrowserGetContentAction = action('BrowserGetContentAction', {
  extract_links: Type.Optional(Type.Boolean({ default: false })),
  start_from_char: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export const BrowserGetStateAction = action('BrowserGetStateAction', {
  include_screenshot: Type.Optional(Type.Boolean({ default: false })),
});
export const BrowserGetStorageAction = action('BrowserGetStorageAction', {});
export const BrowserGoBackAction = action('BrowserGoBackAction', {});
export const BrowserListTabsAction = action('BrowserListTabsAction', {});
export const BrowserNavigateAction = action('BrowserNavigateAction', { url: Type.String(), new_tab: NewTab });
export const BrowserScrollAction = action('BrowserScrollAction', {
  direction: Type.Optional(Type.Union([Type.Literal('up'), Type.Literal('down')], { default: 'down' })),
});
export const BrowserSetStorageAction = action('BrowserSetStorageAction', {
  storage_state: Type.Object({
    cookies: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
    origins: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  }),
});
export const BrowserStartRecordingAction = action('BrowserStartRecordingAction', {});
export const BrowserStopRecordingAction = action('BrowserStopRecordingAction', {});
export const BrowserSwitchTabAction = action('BrowserSwitchTabAction', { tab_id: TabId });
export const BrowserTypeAction = action('BrowserTypeAction', { index: ElementIndex, text: Type.String() });

const editorMembers = {
  command: Type.Union([
    Type.Literal('view'),
    Type.Literal('create'),
    Type.Literal('str_replace'),
    Type.Literal('insert'),
    Type.Literal('undo_edit'),
  ]),
  path: Type.String(),
  file_text: Type.Optional(Nullable(Type.String())),
  old_str: Type.Optional(Nullable(Type.String())),
  new_str: Type.Optional(Nullable(Type.String())),
  insert_line: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  view_range: Type.Optional(Nullable(Type.Array(Type.Integer()))),
};
export const FileEditorAction = action('FileEditorAction', editorMembers);
export const PlanningFileEditorAction = action('PlanningFileEditorAction', editorMembers);

export const EditAction = action('EditAction', {
  file_path: Type.String(),
  old_string: Type.String(),
  new_string: Type.String(),
  expected_replacements: Type.Optional(Type.Integer({ minimum: 0, default: 1 })),
});
export const ListDirectoryAction = action('ListDirectoryAction', {
  dir_path: Type.Optional(Type.String({ default: '.' })),
  recursive: Type.Optional(Type.Boolean({ default: false })),
  /** agentd: how many levels to descend when recursive (OpenHands: 2). */
  depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  /** agentd: glob patterns of names to leave out (e.g. `*.log`, `node_modules`). */
  ignore: Type.Optional(Type.Array(Type.String())),
});
export const ReadFileAction = action('ReadFileAction', {
  file_path: Type.String(),
  offset: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  limit: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
});
export const WriteFileAction = action('WriteFileAction', {
  file_path: Type.String(),
  content: Type.String(),
});
export const GlobAction = action('GlobAction', {
  pattern: Type.String(),
  path: Type.Optional(Nullable(Type.String())),
});
export const GrepAction = action('GrepAction', {
  pattern: Type.String(),
  path: Type.Optional(Nullable(Type.String())),
  include: Type.Optional(Nullable(Type.String())),
});

// OpenHands' GPT-5 preset edits files with this instead of file_editor. The description is what the
// LLM reads of the format (GPT-5.1 knows it; other models given the tool learn it here).
export const ApplyPatchAction = action('ApplyPatchAction', {
  patch: Type.String({
    description: [
      "The patch, in the apply_patch format: '*** Begin Patch', then one section per file, then '*** End Patch'.",
      "'*** Add File: <path>' is followed by the new file's lines, each prefixed with '+'.",
      "'*** Delete File: <path>' stands alone.",
      "'*** Update File: <path>' (optionally followed by '*** Move to: <new path>') is followed by hunks:",
      "each starts with '@@' or '@@ <a line just above the change, such as a class or def line>',",
      "then its lines, each prefixed with ' ' (context: about 3 unchanged lines before and after), '-' (removed) or '+' (added).",
      "'*** End of File' after a hunk means it ends at the end of the file.",
      'Paths are relative to the workspace. The patch applies whole or not at all.',
    ].join(' '),
  }),
});

export const TaskItem = Closed(
  {
    title: Type.String(),
    notes: Type.Optional(Type.String({ default: '' })),
    status: Type.Optional(
      Type.Union([Type.Literal('todo'), Type.Literal('in_progress'), Type.Literal('done')], {
        default: 'todo',
      }),
    ),
  },
  { title: 'TaskItem' },
);
export const TaskTrackerAction = action('TaskTrackerAction', {
  command: Type.Optional(Type.Union([Type.Literal('view'), Type.Literal('plan')], { default: 'view' })),
  task_list: Type.Optional(Type.Array(TaskItem, { default: [] })),
});
/** OpenHands' TaskAction (task_tool_set): a sub-agent of `subagent_type` does `prompt` and reports back. */
export const TaskAction = action('TaskAction', {
  description: Type.Optional(
    Nullable(Type.String({ description: 'A short (3-5 word) description of the task.' })),
  ),
  prompt: Type.String({ description: 'The task for the agent to perform.' }),
  subagent_type: Type.Optional(
    Type.String({
      default: 'general-purpose',
      description: 'The type of specialized agent to use for this task.',
    }),
  ),
  resume: Type.Optional(Nullable(Type.String({ description: 'Task ID of the task to resume from.' }))),
  // OpenHands keeps it on the wire, deprecated and ignored (the definition or the parent sets the limit).
  max_turns: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
});
export const TerminalAction = action('TerminalAction', {
  command: Type.String(),
  is_input: Type.Optional(Type.Boolean({ default: false })),
  timeout: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  reset: Type.Optional(Type.Boolean({ default: false })),
});

export const ACTION_VARIANTS = [
  MCPToolAction,
  FinishAction,
  ThinkAction,
  BrowserAction,
  BrowserClickAction,
  BrowserCloseTabAction,
  BrowserGetContentAction,
  BrowserGetStateAction,
  BrowserGetStorageAction,
  BrowserGoBackAction,
  BrowserListTabsAction,
  BrowserNavigateAction,
  BrowserScrollAction,
  BrowserSetStorageAction,
  BrowserStartRecordingAction,
  BrowserStopRecordingAction,
  BrowserSwitchTabAction,
  BrowserTypeAction,
  FileEditorAction,
  EditAction,
  ListDirectoryAction,
  ReadFileAction,
  WriteFileAction,
  GlobAction,
  GrepAction,
  PlanningFileEditorAction,
  ApplyPatchAction,
  TaskTrackerAction,
  TaskAction,
  TerminalAction,
] as const;

export const Action = KindUnion('Action', [...ACTION_VARIANTS]);
/** `ActionEvent.action`: an Action, or null when the call could not be turned into one. */
export const NullableAction = KindUnion('Action', [...ACTION_VARIANTS], { nullable: true });
