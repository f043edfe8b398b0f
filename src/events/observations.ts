// The Observation union (member `observation` of ObservationEvent): 16 kinds. Every observation has
// `content` (text and images sent to the LLM) and `is_error`. Unknown members are rejected.
import { type TProperties, Type } from 'typebox';
import { TaskItem } from './actions.js';
import { Content } from './content.js';
import { Closed, KindUnion, Nullable } from './schema-helpers.js';

function observation<K extends string, P extends TProperties>(kind: K, properties: P) {
  return Closed(
    {
      content: Type.Optional(Type.Array(Content, { default: [] })),
      is_error: Type.Optional(Type.Boolean({ default: false })),
      ...properties,
      kind: Type.Literal(kind),
    },
    { title: kind },
  );
}

const OptionalText = Type.Optional(Nullable(Type.String()));

export const MCPToolObservation = observation('MCPToolObservation', { tool_name: Type.String() });
export const FinishObservation = observation('FinishObservation', {});
export const ThinkObservation = observation('ThinkObservation', {});
export const BrowserObservation = observation('BrowserObservation', {
  screenshot_data: OptionalText,
  full_output_save_dir: OptionalText,
});

const editorMembers = {
  command: Type.String(),
  path: OptionalText,
  prev_exist: Type.Optional(Type.Boolean({ default: true })),
  old_content: OptionalText,
  new_content: OptionalText,
};
export const FileEditorObservation = observation('FileEditorObservation', editorMembers);
export const PlanningFileEditorObservation = observation('PlanningFileEditorObservation', editorMembers);

export const EditObservation = observation('EditObservation', {
  file_path: OptionalText,
  is_new_file: Type.Optional(Type.Boolean({ default: false })),
  replacements_made: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  old_content: OptionalText,
  new_content: OptionalText,
});

export const DirectoryEntry = Closed(
  {
    name: Type.String(),
    path: Type.String(),
    is_directory: Type.Boolean(),
    size: Type.Integer({ minimum: 0 }),
    modified_time: Type.String(),
  },
  { title: 'DirectoryEntry' },
);
export const ListDirectoryObservation = observation('ListDirectoryObservation', {
  dir_path: OptionalText,
  entries: Type.Optional(Type.Array(DirectoryEntry, { default: [] })),
  total_count: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  is_truncated: Type.Optional(Type.Boolean({ default: false })),
});
export const ReadFileObservation = observation('ReadFileObservation', {
  file_path: Type.String(),
  file_content: Type.Optional(Type.String({ default: '' })),
  is_truncated: Type.Optional(Type.Boolean({ default: false })),
  lines_shown: Type.Optional(Nullable(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }))),
  total_lines: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
});
export const WriteFileObservation = observation('WriteFileObservation', {
  file_path: OptionalText,
  is_new_file: Type.Optional(Type.Boolean({ default: false })),
  old_content: OptionalText,
  new_content: OptionalText,
});
export const GlobObservation = observation('GlobObservation', {
  files: Type.Optional(Type.Array(Type.String(), { default: [] })),
  pattern: Type.String(),
  search_path: Type.String(),
  truncated: Type.Optional(Type.Boolean({ default: false })),
});
export const GrepObservation = observation('GrepObservation', {
  matches: Type.Optional(Type.Array(Type.String(), { default: [] })),
  pattern: Type.String(),
  search_path: Type.String(),
  include_pattern: OptionalText,
  truncated: Type.Optional(Type.Boolean({ default: false })),
});
// apply_patch's record of what it changed, keyed by the path as the patch named it (OpenHands'
// Commit and FileChange): contents before and after, and where an update moved the file.
export const PatchFileChange = Closed(
  {
    type: Type.Union([Type.Literal('add'), Type.Literal('delete'), Type.Literal('update')]),
    old_content: OptionalText,
    new_content: OptionalText,
    move_path: OptionalText,
  },
  { title: 'FileChange' },
);
export const PatchCommit = Closed(
  { changes: Type.Optional(Type.Record(Type.String(), PatchFileChange, { default: {} })) },
  { title: 'Commit' },
);
export const ApplyPatchObservation = observation('ApplyPatchObservation', {
  message: Type.Optional(Type.String({ default: '' })),
  /**
   * How loosely the hunks matched, with OpenHands' weights: 0 exact; per hunk 1 when it matched only
   * ignoring trailing whitespace, 100 ignoring all surrounding whitespace, 10000 an end-of-file hunk
   * found away from the end.
   */
  fuzz: Type.Optional(Type.Integer({ default: 0 })),
  commit: Type.Optional(Nullable(PatchCommit)),
});

export const TaskTrackerObservation = observation('TaskTrackerObservation', {
  command: Type.String(),
  task_list: Type.Optional(Type.Array(TaskItem, { default: [] })),
});

/** OpenHands' TaskObservation: the sub-agent's report (or why it stopped) as `content`. */
export const TaskObservation = observation('TaskObservation', {
  task_id: Type.String({ description: 'The unique identifier of the task.' }),
  subagent: Type.String({ description: 'The subagent of the task.' }),
  status: Type.String({ description: 'The status of the task.' }),
});

export const CmdOutputMetadata = Closed(
  {
    exit_code: Type.Optional(Type.Integer({ default: -1 })),
    pid: Type.Optional(Type.Integer({ default: -1 })),
    username: Type.Optional(Nullable(Type.String())),
    hostname: Type.Optional(Nullable(Type.String())),
    working_dir: Type.Optional(Nullable(Type.String())),
    py_interpreter_path: Type.Optional(Nullable(Type.String())),
    prefix: Type.Optional(Type.String({ default: '' })),
    suffix: Type.Optional(Type.String({ default: '' })),
  },
  { title: 'CmdOutputMetadata' },
);
export const TerminalObservation = observation('TerminalObservation', {
  command: Nullable(Type.String()),
  exit_code: Type.Optional(Nullable(Type.Integer())),
  timeout: Type.Optional(Type.Boolean({ default: false })),
  metadata: Type.Optional(CmdOutputMetadata),
  full_output_save_dir: OptionalText,
});

export const OBSERVATION_VARIANTS = [
  MCPToolObservation,
  FinishObservation,
  ThinkObservation,
  BrowserObservation,
  FileEditorObservation,
  EditObservation,
  ListDirectoryObservation,
  ReadFileObservation,
  WriteFileObservation,
  GlobObservation,
  GrepObservation,
  PlanningFileEditorObservation,
  ApplyPatchObservation,
  TaskTrackerObservation,
  TaskObservation,
  TerminalObservation,
] as const;

export const Observation = KindUnion('Observation', [...OBSERVATION_VARIANTS]);
