// OpenAI's apply_patch format (the GPT-5.1 prompting guide) read into file operations. Pure: no file
// is touched here, so the whole patch is understood, or refused, before anything is read or written.
import { ToolInputError } from '../files/common.js';

export interface HunkLine {
  /** ' ' context (kept from the file), '-' removed, '+' added. */
  op: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  /** The `@@ <line>` lines above the hunk, in order: each is found after the one before it. */
  anchors: string[];
  lines: HunkLine[];
  /** Followed by `*** End of File`: the hunk's old lines are the file's last ones. */
  atEnd: boolean;
}

export type FileOp =
  | { type: 'add'; path: string; lines: string[] }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo: string | null; hunks: Hunk[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const END_OF_FILE = '*** End of File';
const MOVE = '*** Move to:';
const HEADER = /^\*\*\* (Add|Delete|Update) File:(.*)$/;
// A unified diff's line numbers (`@@ -12,5 +12,6 @@`), which models used to `diff -u` sometimes write:
// this format locates hunks by their lines, so the numbers are dropped rather than taken as an anchor.
const LINE_NUMBERS = /^-\d+(,\d+)? \+\d+(,\d+)? @@/;

const fail = (message: string) => new ToolInputError(message);

class Lines {
  private at = 0;
  constructor(private readonly lines: string[]) {}
  done(): boolean {
    return this.at >= this.lines.length;
  }
  peek(): string {
    return this.lines[this.at] as string;
  }
  next(): string {
    return this.lines[this.at++] as string;
  }
  /** Whether the next line starts another file's section (or there is none). */
  atSectionEnd(): boolean {
    return this.done() || HEADER.test(this.peek());
  }
}

/** The patch's file operations, in order; a ToolInputError naming the first thing wrong. */
export function parsePatch(patch: string): FileOp[] {
  // Models sometimes send CRLF line ends or blank lines around the patch; neither is content.
  const lines = patch.replace(/\r\n/g, '\n').trim().split('\n');
  if (lines[0]?.trimEnd() !== BEGIN) throw fail(`Invalid patch: it must start with '${BEGIN}'.`);
  if (lines.length < 2 || lines.at(-1)?.trimEnd() !== END)
    throw fail(`Invalid patch: it must end with '${END}'.`);
  const body = new Lines(lines.slice(1, -1));
  const ops: FileOp[] = [];
  while (!body.done()) {
    const line = body.next();
    const header = HEADER.exec(line);
    if (!header)
      throw fail(
        `Unknown Line: ${line}\nEach file's section starts with '*** Add File: ', '*** Delete File: ' or '*** Update File: '.`,
      );
    const type = header[1] as 'Add' | 'Delete' | 'Update';
    const path = (header[2] as string).trim();
    if (!path) throw fail(`${type} File Error: no path after '*** ${type} File:'.`);
    if (type === 'Add') ops.push({ type: 'add', path, lines: addedLines(body, path) });
    else if (type === 'Delete') ops.push({ type: 'delete', path });
    else ops.push(update(body, path));
  }
  if (ops.length === 0) throw fail('Invalid patch: it names no file to add, delete or update.');
  return ops;
}

function addedLines(body: Lines, path: string): string[] {
  const lines: string[] = [];
  while (!body.atSectionEnd()) {
    const line = body.next();
    if (!line.startsWith('+'))
      throw fail(`Invalid Add File Line in ${path}: ${line}\nEvery line of an added file starts with '+'.`);
    lines.push(line.slice(1));
  }
  return lines;
}

function update(body: Lines, path: string): FileOp {
  let moveTo: string | null = null;
  if (!body.done() && body.peek().startsWith(MOVE)) {
    moveTo = body.next().slice(MOVE.length).trim();
    if (!moveTo) throw fail(`Update File Error: no path after '${MOVE}' for ${path}.`);
  }
  const hunks: Hunk[] = [];
  while (!body.atSectionEnd()) hunks.push(hunk(body, path, hunks.length === 0));
  if (hunks.length === 0 && !moveTo)
    throw fail(`Update File Error: no hunks for ${path}; each change starts with '@@'.`);
  return { type: 'update', path, moveTo, hunks };
}

/** One hunk: its `@@` lines (only the first hunk of a file may go without one), its lines, its end. */
function hunk(body: Lines, path: string, first: boolean): Hunk {
  const anchors: string[] = [];
  let headed = false;
  while (!body.done() && body.peek().startsWith('@@')) {
    headed = true;
    // `@@ def f():` names a line just above the change; the one space after `@@` is the separator.
    const anchor = body.next().slice(2).replace(/^ /, '');
    if (anchor.trim() && !LINE_NUMBERS.test(anchor.trim())) anchors.push(anchor);
  }
  if (!headed && !first) throw fail(`Invalid Line in ${path}: ${body.peek()}\nA new hunk starts with '@@'.`);
  const lines: HunkLine[] = [];
  while (!body.atSectionEnd()) {
    const line = body.peek();
    if (line.startsWith('@@') || line.trimEnd() === END_OF_FILE) break;
    if (line.startsWith('***')) throw fail(`Invalid Line in ${path}: ${line}`);
    body.next();
    // A blank line is an empty context line whose leading space the model (or an editor) dropped.
    const op = line === '' ? ' ' : line[0];
    if (op !== ' ' && op !== '-' && op !== '+')
      throw fail(
        `Invalid Line in ${path}: ${line}\nEvery line of a hunk starts with ' ' (context), '-' (removed) or '+' (added).`,
      );
    lines.push({ op, text: line.slice(1) });
  }
  const atEnd = !body.done() && body.peek().trimEnd() === END_OF_FILE;
  if (atEnd) body.next();
  if (lines.length === 0)
    throw fail(`Invalid patch: an empty hunk in ${path}; '@@' must be followed by the hunk's lines.`);
  return { anchors, lines, atEnd };
}
