// The workspace picker's reads: the server user's home with its top-level folders, and one folder's
// subfolders in pages. Symlinks and files are left out; hidden names only when asked.
import type { Dirent } from 'node:fs';
import { opendir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { absolutePath, FileOperationError, fsFailure } from './errors.js';

export interface NamedPath {
  name: string;
  path: string;
}

/** Most entries of a folder looked at: a folder with more answers its first ones (it is a picker). */
const MAX_SCANNED = 100_000;
/** Favorites listed at most (OpenHands: 50). */
const MAX_FAVORITES = 50;

async function subfolders(dir: string, includeHidden: boolean): Promise<NamedPath[]> {
  const found: NamedPath[] = [];
  const handle = await opendir(dir);
  let scanned = 0;
  for await (const entry of handle as AsyncIterable<Dirent>) {
    if (++scanned > MAX_SCANNED) break;
    if (!includeHidden && entry.name.startsWith('.')) continue;
    // Dirent kinds do not follow symlinks: a link to a folder is not listed.
    if (entry.isDirectory()) found.push({ name: entry.name, path: join(dir, entry.name) });
  }
  const key = (e: NamedPath) => e.name.toLowerCase();
  return found.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export interface HomeListing {
  home: string;
  favorites: { label: string; path: string }[];
  locations: { label: string; path: string }[];
}

export async function homeListing(includeHidden: boolean): Promise<HomeListing> {
  const home = homedir();
  const favorites = await subfolders(home, includeHidden).catch(() => []);
  return {
    home,
    favorites: favorites.slice(0, MAX_FAVORITES).map((e) => ({ label: e.name, path: e.path })),
    locations: [{ label: '/', path: '/' }],
  };
}

export interface SubdirPage {
  items: NamedPath[];
  next_page_id: string | null;
}

/** A page of `path`'s subfolders, sorted case-insensitively; `pageId` is the lowercase name to start at. */
export async function subdirPage(
  path: string,
  options: { pageId?: string; limit: number; includeHidden: boolean },
): Promise<SubdirPage> {
  const target = absolutePath(path);
  const what = { missing: 'Directory not found', wrongKind: 'Path is not a directory' };
  const info = await stat(target).catch((error) => fsFailure(error, what));
  if (!info.isDirectory()) throw new FileOperationError(400, 'Path is not a directory');
  const entries = await subfolders(target, options.includeHidden).catch((error) => fsFailure(error, what));
  // An unknown page id starts from the beginning, as OpenHands does.
  const at = options.pageId ? entries.findIndex((e) => e.name.toLowerCase() === options.pageId) : -1;
  const start = Math.max(at, 0);
  const end = start + options.limit;
  return {
    items: entries.slice(start, end),
    next_page_id: end < entries.length ? entries[end]!.name.toLowerCase() : null,
  };
}
