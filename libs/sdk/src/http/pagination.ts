/**
 * Every item of a cursor-paged list, page by page: `load(cursor)` reads one page, the first with
 * no cursor; iteration ends on a page without a next cursor. Pages are read as the caller consumes
 * items, so breaking out of the loop reads no further page.
 */
export async function* paginate<Page, Item>(
  load: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
  nextCursorOf: (page: Page) => string | null | undefined,
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await load(cursor);
    yield* itemsOf(page);
    cursor = nextCursorOf(page) ?? undefined;
  } while (cursor !== undefined);
}
