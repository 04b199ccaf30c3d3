/**
 * Later pages of a search of inventory packages from its kept matches (searched-matches.ts,
 * docs/performance.md "Fix 63"): they answer what a search answers, read no search while the
 * packages' generation holds, search again once a scan moves it, and are never offered to another
 * account. The accounts hold the sample cluster and every sample scan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseFilters } from '../../src/http/filters.js';
import { searchPathFor } from '../../src/http/search.js';
import { parseSort } from '../../src/http/sort.js';
import { SearchedMatches } from '../../src/modules/list-totals/searched-matches.js';
import { listPackages } from '../../src/modules/vulnerabilities/package-repository.js';
import {
  PACKAGE_FILTER_KEYS,
  PACKAGE_SORT_FIELDS,
} from '../../src/modules/vulnerabilities/package-schemas.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { type Account, pushOk, sampleAccount, scanDoc } from './support.js';

let t: TestApp;
let mine: Account;
let theirs: Account;
before(async () => {
  t = await startTestApp();
  mine = await sampleAccount(t);
  theirs = await sampleAccount(t, { scans: ['storefront-api-3.8.0.trivy.json'] });
});
after(() => t.close());

/** A page of the account's packages read as the owner, and whether it ran a search. */
async function pageOf(
  account: Account,
  q: string,
  options: { sort?: string; filters?: string; offset?: number; searches?: SearchedMatches },
) {
  const statements: string[] = [];
  const filters = parseFilters(options.filters, PACKAGE_FILTER_KEYS);
  const page = await listPackages(recordingDb(t.db, statements), account.accountId, {
    filters,
    inUse: undefined,
    severities: [],
    q,
    searchPath: searchPathFor(t.db.engine),
    sort: parseSort(options.sort, PACKAGE_SORT_FIELDS, 'name:asc'),
    page: { limit: 3, offset: options.offset ?? 0 },
    searches: options.searches,
  });
  // The table's search reads the packages' search text; the function's returns their addresses.
  const searched = statements.some((sql) => sql.includes('search_text') || sql.includes('_search_tids'));
  return { page, searched };
}

const names = (page: { rows: { entry?: unknown }[] }) =>
  page.rows.map((row) => (JSON.parse(String(row.entry)) as { name: string }).name);

describe('inventory packages: later pages of a search from its kept matches', () => {
  test('answer each page and total as a search does, either way, up to past the end, without searching', async () => {
    for (const sort of ['name:asc', 'name:desc']) {
      const searches = new SearchedMatches();
      const first = await pageOf(mine, 'lib', { sort, searches });
      assert.ok(first.searched, 'the first page searches');
      const total = first.page.total;
      assert.ok(total > 6, `enough matches to page through (${total})`);
      assert.equal(searches.size.ids, total, 'and keeps every match');
      for (let offset = 0; offset < total; offset += 3) {
        const kept = await pageOf(mine, 'lib', { sort, offset, searches });
        const searched = await pageOf(mine, 'lib', { sort, offset });
        assert.equal(kept.searched, false, `${sort} offset ${offset} searched`);
        assert.deepEqual(kept.page, searched.page, `${sort} offset ${offset}`);
      }
      // Past the end, the total is counted by a search; an offset past PostgreSQL's array
      // subscripts (int4) too.
      for (const offset of [total, 2 ** 31, 2 ** 53 - 1]) {
        const past = await pageOf(mine, 'lib', { sort, offset, searches });
        assert.deepEqual(past.page, { rows: [], total }, `${sort} offset ${offset}`);
        const unkept = await pageOf(mine, 'lib', { sort, offset });
        assert.deepEqual(unkept.page, { rows: [], total }, `${sort} offset ${offset}, nothing kept`);
      }
    }
  });

  test('a scan that adds a matching package moves the generation: the next page searches again and sees it', async () => {
    const searches = new SearchedMatches();
    const before = await pageOf(mine, 'zz-kept', { searches });
    assert.equal(before.page.total, 0);
    const lib = await pageOf(mine, 'lib', { searches });
    assert.equal((await pageOf(mine, 'lib', { searches })).searched, false);

    // Another account's scan leaves this account's generation, and its kept matches, as they were.
    await pushOk(t, theirs, withPackage('libzz-kept-theirs', 'registry.example/theirs:1'));
    assert.equal((await pageOf(mine, 'lib', { searches })).searched, false);

    await pushOk(t, mine, withPackage('aaa-libzz-kept', 'registry.example/mine:1'));
    const after = await pageOf(mine, 'lib', { searches });
    assert.ok(after.searched, 'a moved generation searches again');
    assert.equal(after.page.total, lib.page.total + 1);
    assert.equal(names(after.page)[0], 'aaa-libzz-kept', 'first in name order');
    assert.equal((await pageOf(mine, 'lib', { searches })).searched, false, 'and keeps the new matches');
  });

  test("one account's kept matches are never offered to another's search", async () => {
    const searches = new SearchedMatches();
    await pageOf(mine, 'lib', { searches });
    const other = await pageOf(theirs, 'lib', { searches });
    assert.ok(other.searched, "the other account's search is its own");
    assert.deepEqual(other.page, (await pageOf(theirs, 'lib', {})).page);
    assert.notEqual(other.page.total, (await pageOf(mine, 'lib', {})).page.total);
  });

  test('a filter or another order keeps nothing', async () => {
    const searches = new SearchedMatches();
    await pageOf(mine, 'lib', { filters: 'in_use:true', searches });
    await pageOf(mine, 'lib', { sort: 'critical_count:desc', searches });
    await pageOf(mine, 'lib', { sort: 'version:asc', searches });
    assert.deepEqual(searches.size, { searches: 0, ids: 0 });
  });
});

/** A scan of another image holding one package of its own, named `name`. */
function withPackage(name: string, image: string) {
  const doc = scanDoc('storefront-api-3.8.0.trivy.json');
  doc.ArtifactName = image;
  doc.Metadata.RepoTags = [image];
  doc.Metadata.RepoDigests = [`${image.split(':')[0]}@sha256:${'ef'.repeat(32)}`];
  doc.Metadata.ImageID = `sha256:${'12'.repeat(32)}`;
  doc.Results[1].Vulnerabilities[0].PkgName = name;
  return doc;
}
