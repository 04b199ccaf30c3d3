/**
 * The list pages of migration 0015 keep the lists' contracts: a deferred join (keys first, then the
 * rows) pages exactly like one ordered select, ties included, and `q` through the trigram index
 * matches a case-insensitive, literal substring of one field, never across two.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCluster, type KubeJson } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import type { Executor } from '../../db/database.js';
import { SEARCH_JOINER_LETTERS, SEARCH_JOINERS } from '../../db/migrations/0053-search-words.js';
import { parseFilters } from '../../http/filters.js';
import { containsPattern, type SearchPath, searchTextClause } from '../../http/search.js';
import { parseSort } from '../../http/sort.js';
import { listContainers } from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let prod: { id: string; name: string };

interface Container {
  name: string;
  image_repo: string;
  image_tag: string;
  owner_name: string;
  owner_namespace: string;
  pod_name: string;
  container_id: string;
  cluster_name: string;
  owner_kind: string;
  created_at: string;
}

/** Neutral values: no field of one container contains another's, nor any phrase searched below. */
function container(i: number, values: Partial<Container> = {}): Container {
  return {
    name: `n${i}`,
    image_repo: `registry.example/repo${i}`,
    image_tag: `v${i}`,
    owner_name: `owner${i}`,
    owner_namespace: `space${i}`,
    pod_name: `pod${i}`,
    container_id: `cid${i}`,
    cluster_name: 'prod',
    owner_kind: 'Deployment',
    created_at: '2026-01-01T00:00:00.000Z',
    ...values,
  };
}

async function insertContainers(accountId: string, clusterId: string, rows: Container[]) {
  for (const row of rows) {
    await t.db.query(
      `insert into inventory_containers (account_id, id, cluster_id, cluster_name, pod_uid, pod_resource_id,
         pod_name, pod_namespace, name, container_id, container_runtime, image, image_repo, image_name,
         image_tag, image_digest, owner_uid, owner_kind, owner_name, owner_namespace,
         owner_resource_version, owner_id, created_at)
       values ($1, $2, $3, $4, $5, '', $6, 'ns', $7, $8, 'containerd', '', $9, 'img', $10, '', 'uid', $11,
               $12, $13, '1', '', $14)`,
      [
        accountId,
        randomUUID(),
        clusterId,
        row.cluster_name,
        randomUUID(),
        row.pod_name,
        row.name,
        row.container_id,
        row.image_repo,
        row.image_tag,
        row.owner_kind,
        row.owner_name,
        row.owner_namespace,
        row.created_at,
      ],
    );
  }
}

const SEARCHED = [
  'name',
  'image_repo',
  'image_tag',
  'owner_name',
  'owner_namespace',
  'pod_name',
  'container_id',
  'cluster_name',
] as const;

/** Sorted by (key, id), both as bytes (the columns are collate "C"; ids are lowercase hex). */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  prod = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  const rows: Container[] = [];
  // 13 containers share a name, a kind and a start time: every page boundary below falls in a tie
  for (let i = 0; i < 13; i++) {
    rows.push(container(100 + i, { name: 'dup', owner_kind: 'Job', created_at: '2026-02-02T00:00:00.000Z' }));
  }
  // one field each holds a token (in another case than the one searched)
  SEARCHED.forEach((field, i) => {
    rows.push(container(200 + i, { [field]: `pre-ZqTok${i}W-post` }));
  });
  rows.push(container(300, { name: 'left-alpha', image_repo: 'beta-right' }));
  rows.push(container(303, { name: 'Éclair', owner_namespace: 'crème' }));
  rows.push(container(301, { image_tag: 'gamma', owner_name: 'delta' }));
  rows.push(container(302, { pod_name: 'tail-eps', container_id: 'ilon-head' }));
  for (const [i, name] of [
    'fifty%off',
    'fiftyXoff',
    'snake_case',
    'snakeXcase',
    'back\\slash',
    'backXslash',
  ].entries()) {
    rows.push(container(400 + i, { name }));
  }
  // each punctuation mark a stored search text writes as a letter (migration 0053), and that letter
  for (const [i, joiner] of [...SEARCH_JOINERS].entries()) {
    rows.push(container(600 + i, { name: `jn${joiner}x9` }));
    rows.push(container(650 + i, { name: `jn${SEARCH_JOINER_LETTERS[i]!.toLowerCase()}x9` }));
  }
  // the words of `svc-12` apart, in two fields, and together
  rows.push(container(700, { name: 'svc-3', owner_namespace: 'team-12' }));
  rows.push(container(701, { name: 'svc-12-a' }));
  await insertContainers(tenant.accountId, prod.id, rows);
  // another account's container with a token: never in this account's answers
  const theirs = await createCluster(t, other.adminToken, other.accountId, 'theirs');
  await insertContainers(other.accountId, theirs.id, [container(500, { name: 'pre-ZqTok0W-post' })]);
});
after(() => t.close());

async function list(query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/inventory_containers${query}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const search = async (q: string) =>
  (await list(`?limit=1000&q=${encodeURIComponent(q)}`)).entries.map((c: KubeJson) => c.name).sort();

describe('inventory containers: pages from the keys', () => {
  test('pages of 4 (ties across every boundary) are the one ordered list cut in pieces, for each sort', async () => {
    const all = (await list('?limit=1000')).entries;
    assert.equal(all.length, 13 + SEARCHED.length + 4 + 6 + 2 * SEARCH_JOINERS.length + 2);
    for (const field of ['name', 'owner_kind', 'created_at', 'image_tag']) {
      for (const direction of ['asc', 'desc']) {
        const expected = [...all]
          .sort((a: KubeJson, b: KubeJson) => byBytes(a[field], b[field]) || byBytes(a.id, b.id))
          .map((c: KubeJson) => c.id);
        if (direction === 'desc') expected.reverse();
        const paged: string[] = [];
        for (let offset = 0; offset < all.length + 4; offset += 4) {
          const page = await list(`?limit=4&offset=${offset}&sort=${field}:${direction}`);
          assert.equal(page.total_count, all.length);
          assert.equal(page.has_more, offset + 4 < all.length);
          paged.push(...page.entries.map((c: KubeJson) => c.id));
        }
        assert.deepEqual(paged, expected, `${field}:${direction}`);
      }
    }
  });

  test('a filter with the page: the same rows as the filtered list, in order', async () => {
    const dups = (await list('?limit=1000&filters=name:dup&sort=created_at:desc')).entries.map(
      (c: KubeJson) => c.id,
    );
    assert.equal(dups.length, 13);
    assert.deepEqual(dups, [...dups].sort(byBytes).reverse());
    const page = await list('?limit=5&offset=5&filters=name:dup&sort=created_at:desc');
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
      const res = await list(`?limit=1000&q=zQtOk${i}w`);
      assert.equal(res.total_count, 1, field);
      assert.equal(res.entries[0][field], `pre-ZqTok${i}W-post`, field);
    }
  });

  test('case is folded as lower() folds it, accented letters included, in "C" columns too', async () => {
    assert.deepEqual(await search('éCLAIR'), ['Éclair']);
    assert.deepEqual(await search('CRÈME'), ['Éclair']);
    assert.deepEqual(await search('É'), ['Éclair'], 'one letter: the search without the index');
  });

  test('a phrase spanning two adjacent fields matches nothing', async () => {
    assert.deepEqual(await search('alpha'), ['left-alpha']);
    assert.deepEqual(await search('beta-r'), ['left-alpha']);
    assert.deepEqual(await search('alphabeta'), []);
    assert.deepEqual(await search('alpha beta'), []);
    assert.deepEqual(await search('alpha\u001fbeta'), [], 'the separator itself');
    assert.deepEqual(await search('gammadelta'), []);
    assert.deepEqual(await search('epsilon'), []);
    assert.deepEqual(await search('eps\u001filon'), []);
  });

  test('%, _ and \\ are literal, through the index (3+ characters) and without it (shorter)', async () => {
    assert.deepEqual(await search('y%o'), ['fifty%off']);
    assert.deepEqual(await search('%'), ['fifty%off']);
    assert.deepEqual(await search('e_c'), ['snake_case']);
    assert.deepEqual(await search('_c'), ['snake_case']);
    assert.deepEqual(await search('k\\s'), ['back\\slash']);
    assert.deepEqual(await search('\\'), ['back\\slash']);
    assert.deepEqual(await search('fifty'), ['fifty%off', 'fiftyXoff']);
  });

  test('punctuation is matched as itself, never as the letter its stored form writes it as', async () => {
    for (const [i, joiner] of [...SEARCH_JOINERS].entries()) {
      const letter = SEARCH_JOINER_LETTERS[i]!.toLowerCase();
      assert.deepEqual(await search(`JN${joiner}X9`), [`jn${joiner}x9`], joiner);
      assert.deepEqual(await search(`n${joiner}x`), [`jn${joiner}x9`], `${joiner}, through the index`);
      assert.deepEqual(await search(`jn${letter}x9`), [`jn${letter}x9`], letter);
      assert.deepEqual(await search(`JN${letter.toUpperCase()}X9`), [`jn${letter}x9`], letter.toUpperCase());
    }
    assert.deepEqual(await search('svc-'), ['svc-12-a', 'svc-3']);
    assert.deepEqual(await search('svc-12'), ['svc-12-a']);
  });

  test("the trigram index hands the recheck no row holding a phrase's words apart", async () => {
    // The search's condition as the search functions write it, run as the owner. Without the
    // account's condition no other index serves it, and the sequential scan a table this small
    // would take is turned off: the plan is the trigram index's.
    const plan = await t.db.transaction(async (tx) => {
      await tx.query(`select set_config('enable_seqscan', 'off', true)`);
      const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing off, summary off)
         select count(*) from inventory_containers
          where search_text like posture_search_words(lower($1 collate "default"))`,
        [containsPattern('svc-12')],
      );
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(
      plan,
      /Bitmap Index Scan on inventory_containers_search \(actual rows=1(\.00)? loops=1\)/,
      plan,
    );
    assert.doesNotMatch(plan, /Rows Removed by Index Recheck/, plan);
  });

  test("with a filter and paging; another account's rows never answer", async () => {
    assert.deepEqual(await search('ZQTOK0W'), ['pre-ZqTok0W-post']);
    const res = await list('?limit=3&offset=1&q=zqtok&sort=name:desc');
    assert.equal(res.total_count, SEARCHED.length);
    const all = (await list('?limit=1000&q=zqtok&sort=name:desc')).entries.map((c: KubeJson) => c.id);
    assert.deepEqual(
      res.entries.map((c: KubeJson) => c.id),
      all.slice(1, 4),
    );
    const filtered = await list(
      `?limit=1000&q=zqtok&filters=${encodeURIComponent('image_tag:pre-ZqTok2W-post')}`,
    );
    assert.equal(filtered.total_count, 1);
    // The page's rows carry the search's total; a page past the end has none, and is counted apart.
    const pastTheEnd = await list(`?limit=3&offset=${SEARCHED.length}&q=zqtok`);
    assert.deepEqual(pastTheEnd.entries, []);
    assert.equal(pastTheEnd.total_count, SEARCHED.length);
    assert.ok(!('total' in res.entries[0]), 'the carried total is not a field of an entry');
    const theirs = await t.request({
      method: 'GET',
      url: `/accounts/${other.accountId}/inventory_containers?q=zqtok0w`,
      token: other.adminToken,
    });
    assert.equal(theirs.body.total_count, 1);
    assert.notEqual(theirs.body.entries[0].cluster_id, prod.id);
  });
});

describe('inventory containers: a searched page filters and sorts as the list does', () => {
  // The page reads the table since migration 0057; 0051's function and its key type stay for a
  // server of an earlier build, which still pages through them.
  test("0051's key type holds every filter key and sort field, with the table's type and collation", async () => {
    const columns = async (relation: string) =>
      (
        await t.db.query<{ attname: string; type: string; collation: string }>(
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
    const tokenRows = (await list('?limit=1000&sort=name:asc')).entries.filter((c: KubeJson) =>
      SEARCHED.some((field) => c[field].includes('ZqTok')),
    );
    assert.equal(tokenRows.length, SEARCHED.length);
    const first = tokenRows.find((c: KubeJson) => c.name === 'pre-ZqTok0W-post');
    let filtered = 0;
    for (const key of CONTAINER_FILTER_KEYS) {
      if (first[key] === '') continue;
      const page = await list(`?limit=1000&q=zqtok0w&filters=${encodeURIComponent(`${key}:${first[key]}`)}`);
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
        const expected = (await list(`?limit=1000&${sort}`)).entries
          .map((c: KubeJson) => c.id)
          .filter((id: string) => tokenIds.has(id));
        const searched = await list(`?limit=1000&q=zqtok&${sort}`);
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
    listContainers(t.db, tenant.accountId, {
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

  test("the table's way reads the table and its trigram index, the function's the rows at its addresses", async () => {
    const statementOf = async (path: SearchPath) => {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      const recording: Executor = {
        query: (sql, params) => {
          seen.push({ sql, params: params ?? [] });
          return t.db.query(sql, params);
        },
        queryAll: (statements) => {
          seen.push(...statements);
          return t.db.queryAll!(statements);
        },
        exec: (sql) => t.db.exec(sql),
      };
      await listContainers(recording, tenant.accountId, {
        filters: parseFilters(undefined, CONTAINER_FILTER_KEYS),
        q: 'zqtok',
        searchPath: path,
        sort: parseSort(undefined, CONTAINER_SORT_FIELDS, 'name:asc'),
        page: { limit: 3, offset: 0 },
      });
      const page = seen.find((statement) => statement.sql.includes('row_to_json'));
      assert.ok(page, 'the page statement was run');
      return page;
    };
    const planOf = (sql: string, params: readonly unknown[]) =>
      t.db.transaction(async (tx) => {
        // A table this small is cheaper to read whole than through an index.
        await tx.query(`select set_config('enable_seqscan', 'off', true)`);
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`explain (costs off) ${sql}`, params);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    const direct = await statementOf('table');
    const directPlan = await planOf(direct.sql, direct.params);
    assert.doesNotMatch(directPlan, /Function Scan/, directPlan);
    assert.ok(direct.sql.includes(searchTextClause('c.search_text', '$2')), direct.sql);
    const viaFunction = await statementOf('function');
    const functionPlan = await planOf(viaFunction.sql, viaFunction.params);
    assert.match(
      viaFunction.sql,
      /c\.ctid = any\(\(select inventory_containers_search_tids\(/,
      viaFunction.sql,
    );
    // The rows at the function's addresses, read from the table: by address once an account holds
    // more than a few hundred containers (test/security/search-functions.test.ts), through the
    // sort's index in a table this small.
    assert.match(functionPlan, /(TID Cond|Filter): \(ctid = ANY /, functionPlan);
    assert.doesNotMatch(functionPlan, /Function Scan/, functionPlan);
    // The clause alone, with no account's condition that another index serves: the trigram index's.
    // (Under the account's, the planner takes it once an account holds thousands of containers.)
    const clausePlan = await planOf(
      `select count(*) from inventory_containers c where ${searchTextClause('c.search_text', '$1')}`,
      [containsPattern('zqtok')],
    );
    assert.match(clausePlan, /Bitmap Index Scan on inventory_containers_search\b/, clausePlan);
  });
});
