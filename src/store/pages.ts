// Every item of a cursor search, page after page. Items may be changed while iterating: the next
// page starts from a cursor taken before the current page was handed out.

export type PagedSearch<T> = (
  pageId: string | undefined,
) => Promise<{ items: T[]; nextPageId: string | null }>;

export async function* allItems<T>(search: PagedSearch<T>): AsyncGenerator<T> {
  let pageId: string | undefined;
  do {
    const page = await search(pageId);
    yield* page.items;
    pageId = page.nextPageId ?? undefined;
  } while (pageId);
}
