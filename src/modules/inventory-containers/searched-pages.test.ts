/**
 * A searched page of inventory containers against the unsearched list: it filters by every filter
 * key and sorts by every sort field as the list does, and the two ways `q` is read (search.ts: the
 * table with its trigram index, or the search function's row addresses) answer the same pages.
 * The account is test/support/searched-containers.ts's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeJson } from '../../../test/ingest/sample.js';
import {
  SEARCHED,
  type SearchedContainers,
  searchedContainers,
} from '../../../test/support/searched-containers.js';
import type { Executor } from '../../db/database.js';
import { parseFilters } from '../../http/filters.js';
import { type SearchPath, searchTextClause } from '../../http/search.js';
import { parseSort } from '../../http/sort.js';
import { listContainers } from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

let f: SearchedContainers;
before(async () => {
  f = await searchedContainers();
});
after(() => f.t.close());

describe('inventory containers: a searched page filters and sorts as the list does', () => {
  // The page reads the table since migration 0057; 0051's function and its key type stay for a
  // server of an earlier build, which still pages through them.
  test("0051's key type holds every filter key and sort field, with the table's type and collation", async () => {
    const columns = async (relation: string) =>
      (
        await f.t.db.query<{ attname: string; type: string; collation: string }>(
          `select attname, atttypid::regtype::text as type, attcollation::regcollation::text as collation
             from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
          [relation],
        )
      ).rows;
    const table = new Map((await columns('inventory_containers')).map((c) => [c.attname, c]));
    const keys = await columns('inventory_container_search_key');
    for (const key of keys) assert.deepEqual(key, table.get(key.attname), key.attname);
    const names = new Set(keys.map((key) => key.attname));
    for (const field of ['account_id', 'id', ...CONTAINER_FILTER_KEYS, ...CONTAINER_SORT_FIELDS]) {
      assert.ok(names.has(field), `${field} is not returned by the search`);
    }
  });

  test('a searched page filters by each filter key and sorts by each sort field as the list does', async () => {
    const tokenRows = (await f.list('?limit=1000&sort=name:asc')).entries.filter((c: KubeJson) =>
      SEARCHED.some((field) => c[field].includes('ZqTok')),
    );
    assert.equal(tokenRows.length, SEARCHED.length);
    const first = tokenRows.find((c: KubeJson) => c.name === 'pre-ZqTok0W-post');
    let filtered = 0;
    for (const key of CONTAINER_FILTER_KEYS) {
      if (first[key] === '') continue;
      const page = await f.list(
        `?limit=1000&q=zqtok0w&filters=${encodeURIComponent(`${key}:${first[key]}`)}`,
      );
      assert.deepEqual(
        page.entries.map((c: KubeJson) => c.id),
        [first.id],
        key,
      );
      filtered++;
    }
    assert.ok(filtered >= CONTAINER_FILTER_KEYS.length - 2, 'at most the two empty fields skipped');
    const tokenIds = new Set(tokenRows.map((c: KubeJson) => c.id));
    for (const field of CONTAINER_SORT_FIELDS) {
      for (const direction of ['asc', 'desc']) {
        const sort = `sort=${field}:${direction}`;
        const expected = (await f.list(`?limit=1000&${sort}`)).entries
          .map((c: KubeJson) => c.id)
          .filter((id: string) => tokenIds.has(id));
        const searched = await f.list(`?limit=1000&q=zqtok&${sort}`);
        assert.deepEqual(
          searched.entries.map((c: KubeJson) => c.id),
          expected,
          sort,
        );
      }
    }
  });
});

describe('inventory containers: q through the table or through the search function (search.ts)', () => {
  /** A searched page read one way, as the owner (whom the policies do not bind, like PGlite's superuser). */
  const pageOf = (
    path: SearchPath,
    q: string,
    options: { sort?: string; filters?: string; offset?: number },
  ) =>
    listContainers(f.t.db, f.tenant.accountId, {
      filters: parseFilters(options.filters, CONTAINER_FILTER_KEYS),
      q,
      searchPath: path,
      sort: parseSort(options.sort, CONTAINER_SORT_FIELDS, 'name:asc'),
      page: { limit: 3, offset: options.offset ?? 0 },
    });

  test('both ways answer the same page and total, whatever the phrase, sort, filter and offset', async () => {
    const queries: [string, { sort?: string; filters?: string; offset?: number }][] = [
      ['zqtok', {}],
      ['zqtok', { sort: 'name:desc', offset: 2 }],
      ['zqtok', { sort: 'created_at:asc', offset: 6 }],
      ['zqtok', { filters: 'owner_kind:Deployment' }],
      ['ZQTOK3W', {}],
      ['svc-12', {}],
      ['svc-', { sort: 'owner_namespace:desc' }],
      ['y%o', {}],
      ['k\\s', {}],
      ['nothing-like-it', {}],
    ];
    for (const [q, options] of queries) {
      const direct = await pageOf('table', q, options);
      const viaFunction = await pageOf('function', q, options);
      assert.deepEqual(direct, viaFunction, `${q} ${JSON.stringify(options)}`);
      if (q === 'zqtok') assert.equal(direct.total, SEARCHED.length);
    }
  });

  test("the table's way reads the texts and their trigram index, the function's its ids; q alone in name order reads only its page", async () => {
    const statementOf = async (path: SearchPath, sort?: string) => {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      const recording: Executor = {
        query: (sql, params) => {
          seen.push({ sql, params: params ?? [] });
          return f.t.db.query(sql, params);
        },
        queryAll: (statements) => {
          seen.push(...statements);
          return f.t.db.queryAll!(statements);
        },
        exec: (sql) => f.t.db.exec(sql),
      };
      await listContainers(recording, f.tenant.accountId, {
        filters: parseFilters(undefined, CONTAINER_FILTER_KEYS),
        q: 'zqtok',
        searchPath: path,
        sort: parseSort(sort, CONTAINER_SORT_FIELDS, 'name:asc'),
        page: { limit: 3, offset: 0 },
      });
      const page = seen.find((statement) => statement.sql.includes('row_to_json'));
      assert.ok(page, 'the page statement was run');
      return page;
    };
    const planOf = (sql: string, params: readonly unknown[]) =>
      f.t.db.transaction(async (tx) => {
        // A table this small is cheaper to read whole than through an index.
        await tx.query(`select set_config('enable_seqscan', 'off', true)`);
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, costs off, timing off, summary off) ${sql}`,
          params,
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });

    // Read the texts once: the page's keys and its total are one run of the search.
    const searchesIn = (plan: string) => plan.match(/Sort Key: s(_\d+)?\.name/g)?.length ?? 0;
    const direct = await statementOf('table');
    assert.ok(direct.sql.includes(searchTextClause('s.search_text', '$2')), direct.sql);
    assert.match(direct.sql, /unnest\(m\.ids\[1:3\]\)/, 'a slice of the ids in name order');
    const directPlan = await planOf(direct.sql, direct.params);
    assert.equal(searchesIn(directPlan), 1, directPlan);
    const viaFunction = await statementOf('function');
    assert.match(viaFunction.sql, /select inventory_container_search_ids\(\$1, \$2\)/, viaFunction.sql);
    assert.match(viaFunction.sql, /unnest\(m\.ids\[1:3\]\)/);
    assert.equal(viaFunction.sql.match(/inventory_container_search_ids/g)?.length, 1, viaFunction.sql);
    assert.equal((await planOf(viaFunction.sql, viaFunction.params)).match(/CTE m\b/g)?.length, 1);
    // Another order reads every match to sort them.
    const sorted = await statementOf('table', 'created_at:asc');
    assert.ok(!sorted.sql.includes('unnest('), sorted.sql);
    assert.ok(sorted.sql.includes('c.id = any(array(select s.container_id'), sorted.sql);
  });
});
