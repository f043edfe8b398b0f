// file_editor's undo history: the texts files had before their edits, at most MAX_VERSIONS per file
// (OpenHands' 10) and MAX_HISTORY_CHARS across all files, the oldest dropped first. Without the overall
// bound each edit of a big file kept a full copy for the conversation's life: 20 inserts on two 10 MB
// files took the server from 83 to 635 MB.

const MAX_VERSIONS = 10;
/** Three versions of a file at the editor's 10 MB limit (a character is a byte of Latin-1 text, two of other). */
const MAX_HISTORY_CHARS = 32 * 1024 * 1024;

export class UndoHistory {
  /** By real path, oldest first; `order` numbers them across files. */
  private readonly versions = new Map<string, { order: number; text: string }[]>();
  /** Files an earlier version of which was dropped, so that running out of undos is explained. */
  private readonly dropped = new Set<string>();
  private chars = 0;
  private next = 0;

  remember(path: string, text: string): void {
    const list = this.versions.get(path) ?? [];
    list.push({ order: this.next++, text });
    this.versions.set(path, list);
    this.chars += text.length;
    if (list.length > MAX_VERSIONS) this.dropOldest(path);
    while (this.chars > MAX_HISTORY_CHARS) this.dropOldest(this.oldestPath());
  }

  /** The text before the last edit of `path`, taken out; undefined when none is kept. */
  take(path: string): string | undefined {
    const list = this.versions.get(path);
    const last = list?.pop();
    if (!list || !last) return undefined;
    if (list.length === 0) this.versions.delete(path);
    this.chars -= last.text.length;
    return last.text;
  }

  /** Why `take` has nothing for the file at `path`, named `shown` as the agent named it. */
  whyNone(path: string, shown: string): string {
    return this.dropped.has(path)
      ? `No earlier version of ${shown} is kept: the undo history keeps ${MAX_VERSIONS} versions of a file and ${MAX_HISTORY_CHARS / 1024 / 1024} MiB of text across files, dropping the oldest.`
      : `No edit history found for ${shown}.`;
  }

  private oldestPath(): string {
    let oldest: [string, number] = ['', Number.POSITIVE_INFINITY];
    for (const [path, list] of this.versions) {
      const order = list[0]?.order ?? Number.POSITIVE_INFINITY;
      if (order < oldest[1]) oldest = [path, order];
    }
    return oldest[0];
  }

  private dropOldest(path: string): void {
    const list = this.versions.get(path);
    const first = list?.shift();
    if (!list || !first) return;
    if (list.length === 0) this.versions.delete(path);
    this.chars -= first.text.length;
    this.dropped.add(path);
  }
}
