/**
 * The list pages of migration 0015 keep the lists' contracts: a deferred join (keys first, then the
 * rows) pages exactly like one ordered select, ties included, and `q` through the trigram index
 * matches a case-insensitive, literal substring of one field, never across two. The account is
 * test/support/searched-containers.ts's, as searched-pages.test.ts's is (each file builds its own).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeJson } from '../../../test/ingest/sample.js';
import {
  byBytes,
  ROW_COUNT,
  SEARCHED,
  type SearchedContainers,
  searchedContainers,
} from '../../../test/support/searched-containers.js';
import { SEARCH_JOINER_LETTERS, SEARCH_JOINERS } from '../../db/migrations/0053-search-words.js';
import { containsPattern } from '../../http/search.js';

let f: SearchedContainers;
before(async () => {
  f = await searchedContainers();
});
after(() => f.t.close());

describe('inventory containers: pages from the keys', () => {
  test('pages of 4 (ties across every boundary) are the one ordered list cut in pieces, for each sort', async () => {
    const all = (await f.list('?limit=1000')).entries;
    assert.equal(all.length, ROW_COUNT);
    // The keys many containers share are ordered by name within a value (migration 0066).
    const thenByName = new Set(['owner_kind', 'image_tag']);
    for (const field of ['name', 'owner_kind', 'created_at', 'image_tag']) {
      for (const direction of ['asc', 'desc']) {
        const expected = [...all]
          .sort(
            (a: KubeJson, b: KubeJson) =>
              byBytes(a[field], b[field]) ||
              (thenByName.has(field) ? byBytes(a.name, b.name) : 0) ||
              byBytes(a.id, b.id),
          )
          .map((c: KubeJson) => c.id);
        if (direction === 'desc') expected.reverse();
        const paged: string[] = [];
        for (let offset = 0; offset < all.length + 4; offset += 4) {
          const page = await f.list(`?limit=4&offset=${offset}&sort=${field}:${direction}`);
          assert.equal(page.total_count, all.length);
          assert.equal(page.has_more, offset + 4 < all.length);
          paged.push(...page.entries.map((c: KubeJson) => c.id));
        }
        assert.deepEqual(paged, expected, `${field}:${direction}`);
      }
    }
  });

  test('a filter with the page: the same rows as the filtered list, in order', async () => {
    const dups = (await f.list('?limit=1000&filters=name:dup&sort=created_at:desc')).entries.map(
      (c: KubeJson) => c.id,
    );
    assert.equal(dups.length, 13);
    assert.deepEqual(dups, [...dups].sort(byBytes).reverse());
    const page = await f.list('?limit=5&offset=5&filters=name:dup&sort=created_at:desc');
    assert.deepEqual(
      page.entries.map((c: KubeJson) => c.id),
      dups.slice(5, 10),
    );
    assert.equal(page.total_count, 13);
  });
});

describe('inventory containers: q through the trigram index', () => {
  test('a token in any one of the searched fields is found, whatever its case', async () => {
    for (const [i, field] of SEARCHED.entries()) {
      const res = await f.list(`?limit=1000&q=zQtOk${i}w`);
      assert.equal(res.total_count, 1, field);
      assert.equal(res.entries[0][field], `pre-ZqTok${i}W-post`, field);
    }
  });

  test('case is folded as lower() folds it, accented letters included, in "C" columns too', async () => {
    assert.deepEqual(await f.search('éCLAIR'), ['Éclair']);
    assert.deepEqual(await f.search('CRÈME'), ['Éclair']);
    assert.deepEqual(await f.search('É'), ['Éclair'], 'one letter: the search without the index');
  });

  test('a phrase spanning two adjacent fields matches nothing', async () => {
    assert.deepEqual(await f.search('alpha'), ['left-alpha']);
    assert.deepEqual(await f.search('beta-r'), ['left-alpha']);
    assert.deepEqual(await f.search('alphabeta'), []);
    assert.deepEqual(await f.search('alpha beta'), []);
    assert.deepEqual(await f.search('alpha\u001fbeta'), [], 'the separator itself');
    assert.deepEqual(await f.search('gammadelta'), []);
    assert.deepEqual(await f.search('epsilon'), []);
    assert.deepEqual(await f.search('eps\u001filon'), []);
  });

  test('%, _ and \\ are literal, through the index (3+ characters) and without it (shorter)', async () => {
    assert.deepEqual(await f.search('y%o'), ['fifty%off']);
    assert.deepEqual(await f.search('%'), ['fifty%off']);
    assert.deepEqual(await f.search('e_c'), ['snake_case']);
    assert.deepEqual(await f.search('_c'), ['snake_case']);
    assert.deepEqual(await f.search('k\\s'), ['back\\slash']);
    assert.deepEqual(await f.search('\\'), ['back\\slash']);
    assert.deepEqual(await f.search('fifty'), ['fifty%off', 'fiftyXoff']);
  });

  test('punctuation is matched as itself, never as the letter its stored form writes it as', async () => {
    for (const [i, joiner] of [...SEARCH_JOINERS].entries()) {
      const letter = SEARCH_JOINER_LETTERS[i]!.toLowerCase();
      assert.deepEqual(await f.search(`JN${joiner}X9`), [`jn${joiner}x9`], joiner);
      assert.deepEqual(await f.search(`n${joiner}x`), [`jn${joiner}x9`], `${joiner}, through the index`);
      assert.deepEqual(await f.search(`jn${letter}x9`), [`jn${letter}x9`], letter);
      assert.deepEqual(
        await f.search(`JN${letter.toUpperCase()}X9`),
        [`jn${letter}x9`],
        letter.toUpperCase(),
      );
    }
    assert.deepEqual(await f.search('svc-'), ['svc-12-a', 'svc-3']);
    assert.deepEqual(await f.search('svc-12'), ['svc-12-a']);
  });

  test("the trigram index hands the recheck no row holding a phrase's words apart", async () => {
    // The search's condition as the search functions write it, run as the owner. Without the
    // account's condition no other index serves it, and the sequential scan a table this small
    // would take is turned off: the plan is the trigram index's.
    const plan = await f.t.db.transaction(async (tx) => {
      await tx.query(`select set_config('enable_seqscan', 'off', true)`);
      const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off, summary off)
         select count(*) from inventory_container_search_texts
          where search_text like posture_search_words(lower($1 collate "default"))`,
        [containsPattern('svc-12')],
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(
      plan,
      /Bitmap Index Scan on inventory_container_search_texts_search \(actual rows=1(\.00)? loops=1\)/,
      plan,
    );
    assert.doesNotMatch(plan, /Rows Removed by Index Recheck/, plan);
  });

  test("with a filter and paging; another account's rows never answer", async () => {
    assert.deepEqual(await f.search('ZQTOK0W'), ['pre-ZqTok0W-post']);
    const res = await f.list('?limit=3&offset=1&q=zqtok&sort=name:desc');
    assert.equal(res.total_count, SEARCHED.length);
    const all = (await f.list('?limit=1000&q=zqtok&sort=name:desc')).entries.map((c: KubeJson) => c.id);
    assert.deepEqual(
      res.entries.map((c: KubeJson) => c.id),
      all.slice(1, 4),
    );
    const filtered = await f.list(
      `?limit=1000&q=zqtok&filters=${encodeURIComponent('image_tag:pre-ZqTok2W-post')}`,
    );
    assert.equal(filtered.total_count, 1);
    // The page's rows carry the search's total; a page past the end has none, and is counted apart.
    const pastTheEnd = await f.list(`?limit=3&offset=${SEARCHED.length}&q=zqtok`);
    assert.deepEqual(pastTheEnd.entries, []);
    assert.equal(pastTheEnd.total_count, SEARCHED.length);
    assert.ok(!('total' in res.entries[0]), 'the carried total is not a field of an entry');
    const theirs = await f.t.request({
      method: 'GET',
      url: `/accounts/${f.other.accountId}/inventory_containers?q=zqtok0w`,
      token: f.other.adminToken,
    });
    assert.equal(theirs.body.total_count, 1);
    assert.notEqual(theirs.body.entries[0].cluster_id, f.prod.id);
  });
});
