// Cursor pages: one out of rows read one past the page's size (`pageOf`), and every item of a
// search, page after page (`allItems`).

export type PagedSearch<T> = (
  pageId: string | undefined,
) => Promise<{ items: T[]; nextPageId: string | null }>;

/**
 * The page of `rows`, read with `LIMIT limit + 1`: a row past the limit is not in it, and its id is
 * the next page's. Takes that row out of `rows`.
 */
export function pageOf<T extends { id: string }>(
  rows: T[],
  limit: number,
): { items: T[]; nextPageId: string | null } {
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
