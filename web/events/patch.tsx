// apply_patch in the timeline, drawn as a file_editor edit is: once applied, each file the patch
// changed as a diff of its contents before and after (the observation's commit); before that, or
// when it was refused, the patch's own text, coloured by line the same way.
import { Diff } from './text.js';

interface FileChange {
  type?: string;
  old_content?: string | null;
  new_content?: string | null;
  move_path?: string | null;
}

const HEADER = /^\*\*\* (?:Add|Delete|Update) File:\s*(.*)$/;

/** The files a patch names, in order: what its head line shows. */
export function patchFiles(patch: string): string[] {
  return patch.split('\n').flatMap((line) => {
    const path = HEADER.exec(line.trimEnd())?.[1];
    return path ? [path] : [];
  });
}

/** One diff per file of the observation's `commit.changes`; null when there is none. */
export function PatchChanges(props: { commit: unknown }) {
  const changes = (props.commit as { changes?: Record<string, FileChange> } | null)?.changes ?? {};
  const entries = Object.entries(changes);
  if (entries.length === 0) return null;
  return (
    <>
      {entries.map(([path, change]) => (
        <Diff
          key={path}
          path={path}
          to={change.move_path ?? path}
          before={change.old_content ?? ''}
          after={change.new_content ?? ''}
        />
      ))}
    </>
  );
}

const lineClass = (line: string) =>
  line.startsWith('***')
    ? 'file'
    : line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : '';

/** The patch as the agent wrote it. */
export function PatchText(props: { patch: string }) {
  return (
    <pre class="diff patch">
      {props.patch.split('\n').map((line, i) => (
        <span key={i} class={lineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
