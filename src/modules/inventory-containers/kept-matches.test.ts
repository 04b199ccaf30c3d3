/**
 * Later pages of a search of inventory containers from its kept matches (searched-matches.ts,
 * docs/performance.md "Fix 63"): they answer what a search answers, read no search while the
 * list's generation holds, search again once a write moves it, and are never offered to another
 * account. The account is test/support/searched-containers.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordingDb } from '../../../test/support/recording-db.js';
import { type SearchedContainers, searchedContainers } from '../../../test/support/searched-containers.js';
import { parseFilters } from '../../http/filters.js';
import { searchPathFor } from '../../http/search.js';
import { parseSort } from '../../http/sort.js';
import { SearchedMatches } from '../list-totals/searched-matches.js';
import { listContainers } from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

let f: SearchedContainers;
before(async () => {
  f = await searchedContainers();
});
after(() => f.t.close());

/** The statements a page ran, as the owner, and the page. */
async function pageOf(
  accountId: string,
  q: string,
  options: { sort?: string; offset?: number; searches?: SearchedMatches },
) {
  const statements: string[] = [];
  const page = await listContainers(recordingDb(f.t.db, statements), accountId, {
    filters: parseFilters(undefined, CONTAINER_FILTER_KEYS),
    q,
    searchPath: searchPathFor(f.t.db.engine),
    sort: parseSort(options.sort, CONTAINER_SORT_FIELDS, 'name:asc'),
    page: { limit: 3, offset: options.offset ?? 0 },
    searches: options.searches,
  });
  // Both ways of searching name the texts: their table, or the search function over it.
  const searched = statements.some((sql) => sql.includes('inventory_container_search'));
  return { page, searched };
}

const names = (page: { rows: { entry?: unknown }[] }) =>
  page.rows.map((row) => (JSON.parse(String(row.entry)) as { name: string }).name);

describe('inventory containers: later pages of a search from its kept matches', () => {
  test('answer each page and total as a search does, either way, up to past the end, without searching', async () => {
    // 13 containers named `dup`: every page boundary falls inside a tie, broken by id
    for (const sort of ['name:asc', 'name:desc']) {
      const searches = new SearchedMatches();
      const first = await pageOf(f.tenant.accountId, 'dup', { sort, searches });
      assert.ok(first.searched, 'the first page searches');
      assert.equal(first.page.total, 13);
      assert.equal(searches.size.ids, 13, 'and keeps every match');
      for (const offset of [0, 3, 6, 9, 12]) {
        const kept = await pageOf(f.tenant.accountId, 'dup', { sort, offset, searches });
        const searched = await pageOf(f.tenant.accountId, 'dup', { sort, offset });
        assert.equal(kept.searched, false, `${sort} offset ${offset} searched`);
        assert.deepEqual(kept.page, searched.page, `${sort} offset ${offset}`);
      }
      // Past the end, the total is counted by a search; an offset past PostgreSQL's array
      // subscripts (int4) too.
      for (const offset of [13, 2 ** 31, 2 ** 53 - 1]) {
        const past = await pageOf(f.tenant.accountId, 'dup', { sort, offset, searches });
        assert.deepEqual(past.page, { rows: [], total: 13 }, `${sort} offset ${offset}`);
        const unkept = await pageOf(f.tenant.accountId, 'dup', { sort, offset });
        assert.deepEqual(unkept.page, { rows: [], total: 13 }, `${sort} offset ${offset}, nothing kept`);
      }
      // The phrase is kept as written: PostgreSQL folds its case, under the database's collation.
      const upper = await pageOf(f.tenant.accountId, 'DUP', { sort, searches });
      assert.ok(upper.searched, 'another case is another search');
      assert.deepEqual(upper.page, first.page);
    }
  });

  test("a write to the account's containers moves the generation: the next page searches again and sees it", async () => {
    const searches = new SearchedMatches();
    await pageOf(f.tenant.accountId, 'zqtok', { searches });
    const generation = searches.get(`${f.tenant.accountId}/inventory_containers/%zqtok%`)?.generation;
    assert.ok(generation);

    // Another account's write leaves this account's generation, and its kept matches, as they were.
    await f.t.db.query(`update inventory_containers set name = 'theirs-renamed' where account_id = $1`, [
      f.other.accountId,
    ]);
    assert.equal((await pageOf(f.tenant.accountId, 'zqtok', { searches })).searched, false);

    // A container renamed in place stops matching, then matches again.
    const rename = (from: string, to: string) =>
      f.t.db.query(`update inventory_containers set name = $3 where account_id = $1 and name = $2`, [
        f.tenant.accountId,
        from,
        to,
      ]);
    await rename('pre-ZqTok0W-post', 'renamed-away');
    const after = await pageOf(f.tenant.accountId, 'zqtok', { searches });
    assert.ok(after.searched, 'a moved generation searches again');
    assert.equal(after.page.total, 7);
    assert.ok(!names(after.page).includes('pre-ZqTok0W-post'));
    assert.notEqual(
      searches.get(`${f.tenant.accountId}/inventory_containers/%zqtok%`)?.generation,
      generation,
    );
    assert.equal(
      (await pageOf(f.tenant.accountId, 'zqtok', { searches })).searched,
      false,
      'and keeps the new matches',
    );

    await rename('renamed-away', 'pre-ZqTok0W-post');
    const back = await pageOf(f.tenant.accountId, 'zqtok', { searches });
    assert.ok(back.searched);
    assert.equal(back.page.total, 8);
    assert.deepEqual(names(back.page), names((await pageOf(f.tenant.accountId, 'zqtok', {})).page));
  });

  test("one account's kept matches are never offered to another's search", async () => {
    const searches = new SearchedMatches();
    assert.equal((await pageOf(f.tenant.accountId, 'zqtok0w', { searches })).page.total, 1);
    const theirs = await pageOf(f.other.accountId, 'zqtok0w', { searches });
    assert.ok(theirs.searched, "the other account's search is its own");
    assert.deepEqual(theirs.page, (await pageOf(f.other.accountId, 'zqtok0w', {})).page);
    assert.notDeepEqual(
      theirs.page.rows.map((row) => row.id),
      (await pageOf(f.tenant.accountId, 'zqtok0w', {})).page.rows.map((row) => row.id),
    );
  });

  test('a search with more matches than one may keep searches every page; another order or a filter too', async () => {
    const searches = new SearchedMatches({ maxIds: 12 });
    await pageOf(f.tenant.accountId, 'dup', { searches });
    assert.deepEqual(searches.size, { searches: 0, ids: 0 });
    assert.ok((await pageOf(f.tenant.accountId, 'dup', { offset: 3, searches })).searched);
    await pageOf(f.tenant.accountId, 'zqtok', { sort: 'created_at:asc', searches });
    assert.deepEqual(searches.size, { searches: 0, ids: 0 }, 'only q alone in name order is kept');
  });
});
