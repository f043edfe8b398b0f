// An update's hunks found in a file's text and applied, as the reference apply_patch does: each hunk's
// old lines (context and removed) are looked for after the previous hunk, exactly, then ignoring
// trailing whitespace, then ignoring all surrounding whitespace; the looser matches count as fuzz.
// Context lines keep the file's own text, so a loose match never rewrites the lines around a change.
import { ToolInputError } from '../files/common.js';
import type { Hunk } from './parse.js';

/** OpenHands' fuzz weights: what a client reading `fuzz` compares against. */
const TRAILING_WHITESPACE_FUZZ = 1;
const SURROUNDING_WHITESPACE_FUZZ = 100;
const END_OF_FILE_ELSEWHERE_FUZZ = 10_000;

type Tier = readonly [normalize: (line: string) => string, fuzz: number];
const EXACT: Tier = [(line) => line, 0];
const TIERS: readonly Tier[] = [
  EXACT,
  [(line) => line.trimEnd(), TRAILING_WHITESPACE_FUZZ],
  [(line) => line.trim(), SURROUNDING_WHITESPACE_FUZZ],
];
/** An `@@` line is one line, matched exactly or ignoring surrounding whitespace (fuzz 1). */
const ANCHOR_TIERS: readonly Tier[] = [EXACT, [(line) => line.trim(), 1]];

/** A file's text as lines, with what joining them back needs. */
interface FileLines {
  lines: string[];
  /** The file's line ending: the first one's. A file mixing both comes back with this one. */
  eol: '\n' | '\r\n';
  /** Whether the last line ends with a line ending (an empty file counts as one: lines added get it). */
  finalNewline: boolean;
}

function splitLines(text: string): FileLines {
  const first = text.indexOf('\n');
  const eol = first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
  const finalNewline = text === '' || text.endsWith('\n');
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  let lines = text === '' ? [] : body.split('\n');
  if (eol === '\r\n') lines = lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  return { lines, eol, finalNewline };
}

function joinLines({ lines, eol, finalNewline }: FileLines): string {
  return lines.length === 0 ? '' : lines.join(eol) + (finalNewline ? eol : '');
}

interface Match {
  index: number;
  fuzz: number;
}

/** Where `block` first occurs in `lines` at or after `from`, at the strictest tier that finds it. */
function find(lines: string[], block: string[], from: number): Match | null {
  for (const [norm, fuzz] of TIERS) {
    const wanted = block.map(norm);
    for (let i = from; i + block.length <= lines.length; i++) {
      if (wanted.every((line, k) => norm(lines[i + k] as string) === line)) return { index: i, fuzz };
    }
  }
  return null;
}

/** An `*** End of File` hunk belongs at the end; found elsewhere it still applies, with heavy fuzz. */
function findAtEnd(lines: string[], block: string[], from: number): Match | null {
  const end = lines.length - block.length;
  if (end >= from) {
    const atEnd = find(lines.slice(end), block, 0);
    if (atEnd?.index === 0) return { index: end, fuzz: atEnd.fuzz };
  }
  const elsewhere = find(lines, block, from);
  return elsewhere && { index: elsewhere.index, fuzz: elsewhere.fuzz + END_OF_FILE_ELSEWHERE_FUZZ };
}

function findAnchor(lines: string[], anchor: string, from: number): Match | null {
  for (const [norm, fuzz] of ANCHOR_TIERS) {
    const wanted = norm(anchor);
    for (let i = from; i < lines.length; i++)
      if (norm(lines[i] as string) === wanted) return { index: i, fuzz };
  }
  return null;
}

const after = (line: number) => (line > 0 ? ` after line ${line}` : '');

/** The file's text with the hunks applied, and the fuzz it took; a ToolInputError when one does not fit. */
export function applyHunks(text: string, hunks: Hunk[], path: string): { text: string; fuzz: number } {
  const file = splitLines(text);
  const { lines } = file;
  const out: string[] = [];
  let cursor = 0;
  let fuzz = 0;
  hunks.forEach((hunk, n) => {
    const which = hunks.length > 1 ? ` (hunk ${n + 1})` : '';
    let from = cursor;
    for (const anchor of hunk.anchors) {
      const found = findAnchor(lines, anchor, from);
      if (!found)
        throw new ToolInputError(
          `Invalid Context in ${path}${which}: no line matches '@@ ${anchor}'${after(from)}.`,
        );
      fuzz += found.fuzz;
      from = found.index + 1;
    }
    const old = hunk.lines.filter((l) => l.op !== '+').map((l) => l.text);
    const match = hunk.atEnd ? findAtEnd(lines, old, from) : find(lines, old, from);
    if (!match)
      throw new ToolInputError(
        `Invalid ${hunk.atEnd ? 'EOF ' : ''}Context in ${path}${which}: these lines were not found${after(from)}:\n${old.join('\n')}`,
      );
    fuzz += match.fuzz;
    out.push(...lines.slice(cursor, match.index));
    let at = match.index;
    for (const line of hunk.lines) {
      if (line.op === '+') out.push(line.text);
      else {
        if (line.op === ' ') out.push(lines[at] as string);
        at++;
      }
    }
    cursor = at;
  });
  out.push(...lines.slice(cursor));
  return { text: joinLines({ ...file, lines: out }), fuzz };
}
