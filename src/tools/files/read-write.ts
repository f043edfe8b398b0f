// read_file, write_file and edit: the simple file tools (OpenHands' Gemini-style set).
import { lstatSync } from 'node:fs';
import type { Static } from 'typebox';
import { EditAction, ReadFileAction, WriteFileAction } from '../../events/index.js';
import { type ResolvedPath, resolveInWorkspace } from '../paths.js';
import type { Tool, ToolOptions } from '../types.js';
import { readNoFollow, writeAtomic } from './atomic.js';
import { fileTool, ToolInputError } from './common.js';

const MAX_LINES_PER_READ = 1000;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The text of the file at `at.real`; messages name it as the agent did. */
function readText(at: ResolvedPath): string {
  const { path } = at;
  const stat = lstatSync(at.real, { throwIfNoEntry: false });
  if (!stat) throw new ToolInputError(`File not found: ${path}`);
  if (stat.isDirectory()) throw new ToolInputError(`${path} is a directory; use list_directory.`);
  const buffer = readNoFollow(
    at.real,
    MAX_FILE_BYTES,
    () => new ToolInputError(`${path} is larger than 10 MB.`),
  );
  if (buffer.subarray(0, 8000).includes(0)) throw new ToolInputError(`${path} is a binary file.`);
  return buffer.toString('utf8');
}

const exists = (at: ResolvedPath) => lstatSync(at.real, { throwIfNoEntry: false }) !== undefined;

export function readFileTool(options: ToolOptions = {}): Tool<Static<typeof ReadFileAction>> {
  return fileTool({
    name: 'read_file',
    kind: 'ReadFileTool',
    actionKind: 'ReadFileAction',
    observationKind: 'ReadFileObservation',
    actionSchema: ReadFileAction,
    readOnly: true,
    description:
      'Read a text file with line numbers. `offset` is the first line to show (0-based) and `limit` the number of lines; at most 1000 lines are shown per call, so read long files in parts.',
    errorMembers: (a) => ({ file_path: a.file_path }),
    async run(action, ctx) {
      const at = resolveInWorkspace(action.file_path, ctx, options);
      const path = at.path;
      const lines = readText(at).split('\n');
      const start = Math.min(action.offset ?? 0, lines.length);
      const count = Math.min(action.limit ?? MAX_LINES_PER_READ, MAX_LINES_PER_READ);
      const shown = lines.slice(start, start + count);
      const truncated = start + shown.length < lines.length;
      const body = shown.map((line, i) => `${String(start + i + 1).padStart(6)}  ${line}`).join('\n');
      const note = truncated
        ? `\n[Showing lines ${start + 1}-${start + shown.length} of ${lines.length}; read on with offset ${start + shown.length}.]`
        : '';
      return {
        members: {
          file_path: path,
          file_content: shown.join('\n'),
          is_truncated: truncated,
          lines_shown: [start + 1, start + shown.length],
          total_lines: lines.length,
        },
        text: body + note,
      };
    },
  });
}

export function writeFileTool(options: ToolOptions = {}): Tool<Static<typeof WriteFileAction>> {
  return fileTool({
    name: 'write_file',
    kind: 'WriteFileTool',
    actionKind: 'WriteFileAction',
    observationKind: 'WriteFileObservation',
    actionSchema: WriteFileAction,
    readOnly: false,
    description: 'Write `content` to a file, creating it (and its folders) or replacing what it held.',
    async run(action, ctx) {
      const at = resolveInWorkspace(action.file_path, ctx, options);
      const path = at.path;
      const old = exists(at) ? readText(at) : null;
      writeAtomic(at.real, action.content);
      return {
        members: {
          file_path: path,
          is_new_file: old === null,
          ...(old !== null ? { old_content: old } : {}),
          new_content: action.content,
        },
        text: old === null ? `Created ${path}.` : `Overwrote ${path}.`,
      };
    },
  });
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length))
    count++;
  return count;
}

export function editTool(options: ToolOptions = {}): Tool<Static<typeof EditAction>> {
  return fileTool({
    name: 'edit',
    kind: 'EditTool',
    actionKind: 'EditAction',
    observationKind: 'EditObservation',
    actionSchema: EditAction,
    readOnly: false,
    description:
      'Replace `old_string` with `new_string` in a file. The match is exact, whitespace included, and must occur exactly `expected_replacements` times (default 1). An empty `old_string` creates a new file holding `new_string`.',
    async run(action, ctx) {
      const at = resolveInWorkspace(action.file_path, ctx, options);
      const path = at.path;
      if (action.old_string === '') {
        if (exists(at))
          throw new ToolInputError(`Error: ${path} already exists; give the text to replace in old_string.`);
        writeAtomic(at.real, action.new_string);
        return {
          members: { file_path: path, is_new_file: true, new_content: action.new_string },
          text: `Created ${path}.`,
        };
      }
      const old = readText(at);
      const expected = action.expected_replacements ?? 1;
      const found = occurrences(old, action.old_string);
      if (found !== expected) {
        throw new ToolInputError(`Error: Expected ${expected} occurrence(s) but found ${found} in ${path}.`);
      }
      const updated = old.split(action.old_string).join(action.new_string);
      writeAtomic(at.real, updated);
      return {
        members: {
          file_path: path,
          is_new_file: false,
          replacements_made: found,
          old_content: old,
          new_content: updated,
        },
        text: `Successfully edited ${path} (${found} replacement(s)).`,
      };
    },
  });
}
