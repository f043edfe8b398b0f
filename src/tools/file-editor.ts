// file_editor: view, create, str_replace, insert and undo_edit on files given by absolute path, with
// OpenHands' messages. Failures are observations with is_error (the agent reads and corrects them),
// not exceptions. Paths are resolved to where they really lead (resolveInWorkspace) and the file
// operations use that real path; messages name the path as the agent gave it.
import { lstatSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Static } from 'typebox';
import { FileEditorAction } from '../events/index.js';
import { toolDefinition } from './define.js';
import { UndoHistory } from './editor/history.js';
import { listDirectory } from './editor/listing.js';
import { numberedHead } from './editor/output.js';
import { readNoFollow, writeAtomic } from './files/atomic.js';
import { type ResolvedPath, resolveInWorkspace, workspaceRoot } from './paths.js';
import type { Tool, ToolContext, ToolOptions } from './types.js';

type Action = Static<typeof FileEditorAction>;
type Observation = {
  kind: 'FileEditorObservation';
  command: string;
  path?: string;
  prev_exist?: boolean;
  old_content?: string;
  new_content?: string;
  content: { type: 'text'; text: string; cache_prompt: boolean }[];
  is_error: boolean;
};

const MAX_FILE_BYTES = 10 * 1024 * 1024;
const SNIPPET_LINES = 4;

class EditorError extends Error {}

function isBinary(buffer: Buffer): boolean {
  const sample = buffer.subarray(0, 8000);
  return sample.includes(0);
}

function readText({ path, real }: ResolvedPath): string {
  const buffer = readNoFollow(
    real,
    MAX_FILE_BYTES,
    (size) =>
      new EditorError(`File too large: ${path} is ${size} bytes; the limit is ${MAX_FILE_BYTES} bytes.`),
  );
  if (isBinary(buffer))
    throw new EditorError(`${path} is a binary file; the editor only handles text files.`);
  return buffer.toString('utf8');
}

const exists = (real: string) => lstatSync(real, { throwIfNoEntry: false }) !== undefined;

function snippet(text: string, aroundLine: number, extra: number): string {
  const lines = text.split('\n');
  const start = Math.max(0, aroundLine - SNIPPET_LINES);
  const end = Math.min(lines.length, aroundLine + SNIPPET_LINES + extra + 1);
  return numberedHead(lines.slice(start, end).join('\n'), start + 1);
}

export class FileEditor {
  private readonly history = new UndoHistory();

  constructor(private readonly options: ToolOptions = {}) {}

  async run(action: Action, ctx: Pick<ToolContext, 'workingDir'>): Promise<Observation> {
    const path = action.path;
    const ok = (text: string, extra: Partial<Observation> = {}): Observation => ({
      kind: 'FileEditorObservation',
      command: action.command,
      path,
      content: [{ type: 'text', text, cache_prompt: false }],
      is_error: false,
      ...extra,
    });
    try {
      if (!isAbsolute(path)) {
        const suggestion = resolve(ctx.workingDir, path);
        throw new EditorError(
          `Invalid \`path\` parameter: ${path}. The path should be an absolute path, starting with \`/\`. Maybe you meant ${suggestion}?`,
        );
      }
      let at: ResolvedPath;
      try {
        at = resolveInWorkspace(path, ctx, this.options);
      } catch (error) {
        throw new EditorError((error as Error).message);
      }
      const real = at.real;
      switch (action.command) {
        case 'view':
          return ok(await this.view(at, workspaceRoot(ctx), action.view_range ?? null));
        case 'create': {
          if (action.file_text === undefined || action.file_text === null)
            throw missing('file_text', 'create');
          if (exists(real)) {
            throw new EditorError(
              `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`,
            );
          }
          writeAtomic(real, action.file_text);
          this.history.remember(real, '');
          return ok(`File created successfully at: ${path}`, {
            prev_exist: false,
            new_content: action.file_text,
          });
        }
        case 'str_replace': {
          if (action.old_str === undefined || action.old_str === null)
            throw missing('old_str', 'str_replace');
          return ok(...this.replace(at, action.old_str, action.new_str ?? ''));
        }
        case 'insert': {
          if (action.insert_line === undefined || action.insert_line === null)
            throw missing('insert_line', 'insert');
          if (action.new_str === undefined || action.new_str === null) throw missing('new_str', 'insert');
          return ok(...this.insert(at, action.insert_line, action.new_str));
        }
        case 'undo_edit': {
          // Kept by real path: an edit through a link and its undo by the file's own name meet.
          const previous = this.history.take(real);
          if (previous === undefined) throw new EditorError(this.history.whyNone(real, path));
          writeAtomic(real, previous);
          return ok(`Last edit to ${path} undone successfully. ${snippetAll(previous)}`, {
            new_content: previous,
          });
        }
      }
      throw new EditorError(`Unrecognized command ${action.command}.`);
    } catch (error) {
      const text = error instanceof EditorError ? error.message : `Error: ${(error as Error).message}`;
      return { ...ok(text), is_error: true };
    }
  }

  private async view(at: ResolvedPath, workspace: string, range: number[] | null): Promise<string> {
    const path = at.path;
    const stat = lstatSync(at.real, { throwIfNoEntry: false });
    if (!stat) throw new EditorError(`The path ${path} does not exist. Please provide a valid path.`);
    if (stat.isDirectory()) {
      if (range)
        throw new EditorError('The `view_range` parameter is not allowed when `path` points to a directory.');
      return listDirectory(at, workspace, this.options);
    }
    const text = readText(at);
    if (!range) return `Here's the result of running \`cat -n\` on ${path}:\n${numberedHead(text)}\n`;
    const lines = text.split('\n');
    if (range.length !== 2)
      throw new EditorError('Invalid `view_range` parameter: it should be a list of two integers.');
    const [start, requestedEnd] = range as [number, number];
    if (start < 1 || start > lines.length) {
      throw new EditorError(
        `Invalid \`view_range\` parameter: ${JSON.stringify(range)}. Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines.length}].`,
      );
    }
    let end = requestedEnd === -1 ? lines.length : requestedEnd;
    let note = '';
    if (end < start) {
      throw new EditorError(
        `Invalid \`view_range\` parameter: ${JSON.stringify(range)}. Its second element \`${end}\` should be greater than or equal to the first element \`${start}\`.`,
      );
    }
    if (end > lines.length) {
      note = `NOTE: We only show up to ${lines.length} since there're only ${lines.length} lines in this file.\n`;
      end = lines.length;
    }
    return `${note}Here's the result of running \`cat -n\` on ${path}:\n${numberedHead(lines.slice(start - 1, end).join('\n'), start)}\n`;
  }

  private replace(file: ResolvedPath, oldStr: string, newStr: string): [string, Partial<Observation>] {
    const path = file.path;
    if (!exists(file.real))
      throw new EditorError(`The path ${path} does not exist. Please provide a valid path.`);
    const text = readText(file);
    let needle = oldStr;
    let found = matches(text, needle);
    if (found.count === 0 && oldStr.trim() !== oldStr) {
      needle = oldStr.trim();
      if (needle) found = matches(text, needle);
    }
    if (found.count === 0) {
      throw new EditorError(
        `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
      );
    }
    if (found.count > 1) {
      const more = found.count - found.lines.length;
      throw new EditorError(
        `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines ${JSON.stringify(found.lines)}${more > 0 ? ` and ${more} more` : ''}. Please ensure it is unique.`,
      );
    }
    if (needle === newStr)
      throw new EditorError('No replacement was performed. `new_str` and `old_str` must be different.');
    const updated = text.slice(0, found.first) + newStr + text.slice(found.first + needle.length);
    this.history.remember(file.real, text);
    writeAtomic(file.real, updated);
    const line = (found.lines[0] as number) - 1;
    const shown = snippet(updated, line, newStr.split('\n').length);
    return [
      `The file ${path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${path}:\n${shown}\nReview the changes and make sure they are as expected. Edit the file again if necessary.`,
      { old_content: text, new_content: updated },
    ];
  }

  private insert(at: ResolvedPath, line: number, newStr: string): [string, Partial<Observation>] {
    const path = at.path;
    if (!exists(at.real))
      throw new EditorError(`The path ${path} does not exist. Please provide a valid path.`);
    const text = readText(at);
    const lines = text.split('\n');
    if (line < 0 || line > lines.length) {
      throw new EditorError(
        `Invalid \`insert_line\` parameter: ${line}. It should be within the range of allowed values: [0, ${lines.length}]`,
      );
    }
    const updatedLines = [...lines.slice(0, line), ...newStr.split('\n'), ...lines.slice(line)];
    const updated = updatedLines.join('\n');
    this.history.remember(at.real, text);
    writeAtomic(at.real, updated);
    const shown = snippet(updated, line, newStr.split('\n').length - 1);
    return [
      `The file ${path} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${shown}\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
      { old_content: text, new_content: updated },
    ];
  }
}

/** How many line numbers of a non-unique old_str the error lists: 30,000 of them made a 169k-character message. */
const MAX_LISTED_LINES = 50;

/**
 * The non-overlapping places of `needle` (as OpenHands counts them): how many, and the line numbers
 * of the first MAX_LISTED_LINES. Line breaks are counted once, from one match to the next, so a file
 * with many matches costs one pass rather than one pass per match.
 */
function matches(text: string, needle: string): { count: number; lines: number[]; first: number } {
  const lines: number[] = [];
  let count = 0;
  let line = 1;
  let counted = 0;
  let at = text.indexOf(needle);
  const first = at;
  while (at !== -1) {
    count++;
    if (lines.length < MAX_LISTED_LINES) {
      for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1))
        line++;
      counted = at;
      lines.push(line);
    }
    at = text.indexOf(needle, at + needle.length);
  }
  return { count, lines, first };
}

function snippetAll(text: string): string {
  return `Here's the result of running \`cat -n\` on the restored file:\n${numberedHead(text)}\n`;
}

function missing(parameter: string, command: string): EditorError {
  return new EditorError(`Parameter \`${parameter}\` is required for command: ${command}.`);
}

export function fileEditorTool(options: ToolOptions = {}): Tool<Action, Observation> {
  const editor = new FileEditor(options);
  return {
    name: 'file_editor',
    actionKind: 'FileEditorAction',
    actionSchema: FileEditorAction,
    readOnly: false,
    definition: toolDefinition({
      name: 'file_editor',
      kind: 'FileEditorTool',
      actionKind: 'FileEditorAction',
      observationKind: 'FileEditorObservation',
      readOnly: false,
      description: [
        'View, create and edit text files. Paths must be absolute.',
        '* `view` a file shows it with line numbers (`view_range` [start, end] limits it, end -1 = to the end); a directory shows two levels of it.',
        '* `create` writes `file_text` to a new file; it refuses to overwrite an existing one.',
        '* `str_replace` replaces `old_str`, which must match exactly one place in the file (whitespace included), with `new_str`. Include enough surrounding lines to make it unique.',
        '* `insert` adds `new_str` after line `insert_line` (0 puts it at the top).',
        '* `undo_edit` restores the file as it was before its last edit.',
      ].join('\n'),
    }),
    async execute(action, ctx) {
      return editor.run(action, ctx);
    },
  };
}
