// Cursor pages: one read as the rows of its size and one more, whose id names the next page
// (`readPage`), and every item of a search, page after page (`allItems`).

export type PagedSearch<T> = (
  pageId: string | undefined,
) => Promise<{ items: T[]; nextPageId: string | null }>;

/**
 * A page of at most `limit` items: `read(count)` answers up to `count` rows in order (its query's
 * LIMIT); the one past `limit`, if any, is not in the page, and its id is the next page's.
 */
export async function readPage<T extends { id: string }>(
  limit: number,
  read: (count: number) => T[] | Promise<T[]>,
): Promise<{ items: T[]; nextPageId: string | null }> {
  const rows = await read(limit + 1);
  const next = rows.length > limit ? rows.pop() : undefined;
  return { items: rows, nextPageId: next?.id ?? null };
}

/**
 * Every item of a search. Items may be changed while iterating: the next page starts from a cursor
 * taken before the current page was handed out.
 */
export async function* allItems<T>(search: PagedSearch<T>): AsyncGenerator<T> {
  let pageId: string | undefined;
  do {
    const page = await search(pageId);
    yield* page.items;
    pageId = page.nextPageId ?? undefined;
  } while (pageId);
}
