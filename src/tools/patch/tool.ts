// apply_patch: the file editing tool of OpenHands' GPT-5 preset. All or nothing: the patch is parsed,
// every path confined to the workspace as in every file tool (resolveInWorkspace, links resolved),
// every file read and every new text computed before the first write; a write that still fails
// (a full disk, a folder where a file was meant) puts back what was already written.
import { lstatSync, rmSync, unlinkSync } from 'node:fs';
import type { Static } from 'typebox';
import { ApplyPatchAction, type PatchFileChange } from '../../events/index.js';
import { readNoFollow, writeAtomic } from '../files/atomic.js';
import { fileTool, ToolInputError } from '../files/common.js';
import { PathError, type ResolvedPath, resolveInWorkspace } from '../paths.js';
import type { Tool, ToolContext, ToolOptions } from '../types.js';
import { applyHunks } from './hunks.js';
import { type FileOp, parsePatch } from './parse.js';

type Action = Static<typeof ApplyPatchAction>;
type FileChange = Static<typeof PatchFileChange>;

/**
 * The largest patch taken, in bytes. A model writes at most ~128k tokens (about 0.5 MB) in one
 * answer, so a real patch is far below this; past it the text is no LLM's patch, and it would be
 * stored twice in its ActionEvent (the call's arguments and the action).
 */
export const MAX_PATCH_BYTES = 4 * 1024 * 1024;
/** Each file read, as file_editor's guard. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * All the texts the observation's commit carries (every file's old and new content): a patch of
 * many deletions must not load the workspace into one event.
 */
export const MAX_COMMIT_CHARS = 32 * 1024 * 1024;

const DESCRIPTION =
  "Apply unified text patches to files in the workspace. Input must start with '*** Begin Patch' and end with '*** End Patch'.";

interface Write {
  path: string;
  real: string;
  text: string;
  /** What the file held before, to put back; null: there was no file. */
  previous: string | null;
  /** A moved file keeps its permissions; an updated one keeps them anyway (writeAtomic). */
  mode?: number;
}
interface Removal {
  path: string;
  real: string;
  text: string;
  mode: number;
}
interface Plan {
  changes: Record<string, FileChange>;
  writes: Write[];
  removals: Removal[];
  fuzz: number;
  done: string[];
}

const missingEntry = (error: unknown) =>
  ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

function entry(real: string) {
  try {
    return lstatSync(real);
  } catch (error) {
    if (missingEntry(error)) return undefined;
    throw error;
  }
}

/** Works out every change of the patch without writing anything. */
class Planner {
  readonly plan: Plan = { changes: {}, writes: [], removals: [], fuzz: 0, done: [] };
  /** The files named so far, by real path: two names for one file (a link) are one file. */
  private readonly named = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly ctx: Pick<ToolContext, 'workingDir'>,
    private readonly options: ToolOptions,
  ) {}

  add(op: Extract<FileOp, { type: 'add' }>): void {
    const at = this.claim(op.path, 'Add File');
    if (entry(at.real))
      throw new ToolInputError(
        `Add File Error: File already exists: ${op.path}; use '*** Update File: ${op.path}' to change it.`,
      );
    // Every added line ends with a line break, the last one too, as files conventionally do.
    const text = op.lines.map((line) => `${line}\n`).join('');
    this.count(text);
    this.plan.changes[op.path] = { type: 'add', old_content: null, new_content: text, move_path: null };
    this.plan.writes.push({ path: op.path, real: at.real, text, previous: null });
    this.plan.done.push(`added ${op.path}`);
  }

  delete(op: Extract<FileOp, { type: 'delete' }>): void {
    const at = this.claim(op.path, 'Delete File');
    const { text, mode } = this.read(at, op.path, 'Delete File');
    this.plan.changes[op.path] = { type: 'delete', old_content: text, new_content: null, move_path: null };
    this.plan.removals.push({ path: op.path, real: at.real, text, mode });
    this.plan.done.push(`deleted ${op.path}`);
  }

  update(op: Extract<FileOp, { type: 'update' }>): void {
    const at = this.claim(op.path, 'Update File');
    const { text: old, mode } = this.read(at, op.path, 'Update File');
    const { text, fuzz } = applyHunks(old, op.hunks, op.path);
    this.count(text);
    this.plan.fuzz += fuzz;
    if (op.moveTo) {
      const to = this.claim(op.moveTo, 'Update File');
      if (entry(to.real))
        throw new ToolInputError(
          `Update File Error: cannot move ${op.path} to ${op.moveTo}: ${op.moveTo} already exists.`,
        );
      this.plan.writes.push({ path: op.moveTo, real: to.real, text, previous: null, mode });
      this.plan.removals.push({ path: op.path, real: at.real, text: old, mode });
      this.plan.done.push(`moved ${op.path} to ${op.moveTo}${text === old ? '' : ' and updated it'}`);
    } else {
      this.plan.writes.push({ path: op.path, real: at.real, text, previous: old });
      this.plan.done.push(`updated ${op.path}`);
    }
    this.plan.changes[op.path] = {
      type: 'update',
      old_content: old,
      new_content: text,
      move_path: op.moveTo,
    };
  }

  /** Where `path` really is, refused outside the workspace or when the patch already named that file. */
  private claim(path: string, label: string): ResolvedPath {
    const at = resolveInWorkspace(path, this.ctx, this.options);
    const earlier = this.named.get(at.real);
    if (earlier !== undefined)
      throw new ToolInputError(
        `${label} Error: Duplicate Path: ${path}${earlier === path ? '' : ` (the same file as ${earlier})`}; a patch names each file once.`,
      );
    this.named.set(at.real, path);
    return at;
  }

  /** The text of an existing regular file, with file_editor's size and binary guards. */
  private read(at: ResolvedPath, path: string, label: string): { text: string; mode: number } {
    const stat = entry(at.real);
    if (!stat) throw new ToolInputError(`${label} Error: Missing File: ${path}`);
    if (stat.isDirectory()) throw new ToolInputError(`${label} Error: ${path} is a directory.`);
    const buffer = readNoFollow(
      at.real,
      MAX_FILE_BYTES,
      (size) =>
        new ToolInputError(`${label} Error: ${path} is ${size} bytes; the limit is ${MAX_FILE_BYTES} bytes.`),
    );
    if (buffer.subarray(0, 8000).includes(0))
      throw new ToolInputError(
        `${label} Error: ${path} is a binary file; apply_patch only changes text files.`,
      );
    const text = buffer.toString('utf8');
    this.count(text);
    return { text, mode: stat.mode };
  }

  private count(text: string): void {
    this.chars += text.length;
    if (this.chars > MAX_COMMIT_CHARS)
      throw new ToolInputError(
        `The patch touches more than ${MAX_COMMIT_CHARS / 1024 / 1024} MB of file text; split it into smaller patches.`,
      );
  }
}

function planPatch(patch: string, ctx: Pick<ToolContext, 'workingDir'>, options: ToolOptions): Plan {
  try {
    const bytes = Buffer.byteLength(patch);
    if (bytes > MAX_PATCH_BYTES)
      throw new ToolInputError(
        `Patch too large: ${bytes} bytes; the limit is ${MAX_PATCH_BYTES} bytes. Split it into smaller patches.`,
      );
    const planner = new Planner(ctx, options);
    for (const op of parsePatch(patch)) {
      if (op.type === 'add') planner.add(op);
      else if (op.type === 'delete') planner.delete(op);
      else planner.update(op);
    }
    return planner.plan;
  } catch (error) {
    // The errors fileTool shows the agent (bad input, a path refused, the file system's refusal), each
    // with the word that nothing was written; anything else is a bug and stays one.
    if (
      error instanceof ToolInputError ||
      error instanceof PathError ||
      (error as NodeJS.ErrnoException).code
    )
      throw new ToolInputError(
        `${(error as Error).message}\nThe patch was not applied: no file was changed.`,
      );
    throw error;
  }
}

/** Writes the plan; on a failure, puts back what it had written and says what it could not. */
function write(plan: Plan): void {
  const undo: { path: string; run: () => void }[] = [];
  let current = '';
  try {
    for (const w of plan.writes) {
      current = w.path;
      writeAtomic(w.real, w.text, w.mode);
      const previous = w.previous;
      undo.push({
        path: w.path,
        run: previous === null ? () => rmSync(w.real, { force: true }) : () => writeAtomic(w.real, previous),
      });
    }
    for (const r of plan.removals) {
      current = r.path;
      unlinkSync(r.real);
      undo.push({ path: r.path, run: () => writeAtomic(r.real, r.text, r.mode) });
    }
  } catch (error) {
    const stuck = undo.reverse().flatMap((u) => {
      try {
        u.run();
        return [];
      } catch {
        return [u.path];
      }
    });
    throw new ToolInputError(
      `Writing ${current} failed: ${(error as Error).message}\n${
        stuck.length > 0
          ? `The patch was applied in part: ${stuck.join(', ')} could not be put back as they were.`
          : 'The patch was not applied: no file was changed.'
      }`,
    );
  }
}

function message(plan: Plan): string {
  const count = plan.done.length;
  const lines = [
    `Done! The patch changed ${count} file${count === 1 ? '' : 's'}:`,
    ...plan.done.map((d) => `- ${d}`),
  ];
  if (plan.fuzz > 0)
    lines.push(
      `Some hunks matched only loosely (fuzz ${plan.fuzz}: whitespace ignored, or an end-of-file hunk found before the end); check that they landed where you meant.`,
    );
  return lines.join('\n');
}

export function applyPatchTool(options: ToolOptions = {}): Tool<Action> {
  return fileTool<Action>({
    name: 'apply_patch',
    kind: 'ApplyPatchTool',
    actionKind: 'ApplyPatchAction',
    observationKind: 'ApplyPatchObservation',
    actionSchema: ApplyPatchAction,
    readOnly: false,
    description: DESCRIPTION,
    errorMembers: (_action, error) => ({ message: error, fuzz: 0, commit: null }),
    async run(action, ctx) {
      const plan = planPatch(action.patch, ctx, options);
      write(plan);
      const text = message(plan);
      return { members: { message: text, fuzz: plan.fuzz, commit: { changes: plan.changes } }, text };
    },
  });
}
