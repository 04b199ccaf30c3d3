/**
 * A list's offset pages checked against the list read in one page: every page in order, then some
 * read again and out of order, each exactly its slice. The bookmark tests use it: a page read
 * from a bookmark (src/modules/list-totals/page-bookmarks.ts) must be the page a walk reads.
 *
 * @example
 *   const all = await whole('name:asc');
 *   await assertPagesCutTheList(all, (offset) => pageIds('name:asc', offset), {
 *     size: 4, again: [16, 16, 20, 8], message: 'name:asc',
 *   });
 */
import assert from 'node:assert/strict';

export async function assertPagesCutTheList(
  all: readonly string[],
  /** the ids of the page of `size` rows at `offset` */
  pageAt: (offset: number) => Promise<string[]>,
  { size, again, message }: { size: number; again: readonly number[]; message: string },
) {
  const paged: string[] = [];
  for (let offset = 0; offset < all.length; offset += size) paged.push(...(await pageAt(offset)));
  assert.deepEqual(paged, all, message);
  for (const offset of again) {
    assert.deepEqual(await pageAt(offset), all.slice(offset, offset + size), `${message} ${offset}`);
  }
}
