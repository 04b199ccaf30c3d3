/**
 * Pages of inventory containers, inventory packages, resources and HTTP request observations are
 * assembled from each entry's bytes, which the server keeps by the row's version
 * (row-bytes-cache.ts, versionedPage; docs/performance.md "Fix 48", "Fix 49" and "Fix 51"). Whether its entries came from the
 * cache, from rows read by id, or from a page read whole, a body must be the bytes of the page read
 * whole with no cache at all; the harness also validates every body against /openapi.json. A row
 * rewritten since it was kept is a new row version, and is read again; so is a package whose
 * `in_use` changed while its row did not; another tenant's pages never hold this one's entries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { withSystemScope } from '../../src/db/scope.js';
import { syntheticStream } from '../../src/engines/runtime/sample/bench.js';
import type { Actor } from '../../src/http/actor.js';
import { createRowBytesCache, type RowBytesCache } from '../../src/http/row-bytes-cache.js';
import type { AccountService } from '../../src/modules/accounts/service.js';
import type { ClusterService } from '../../src/modules/clusters/service.js';
import { createInventoryContainerService } from '../../src/modules/inventory-containers/service.js';
import { SearchedMatches } from '../../src/modules/list-totals/searched-matches.js';
import { createResourceService } from '../../src/modules/resources/service.js';
import { createHttpObservationService } from '../../src/modules/runtime/http-service.js';
import { createPackageService } from '../../src/modules/vulnerabilities/package-service.js';
import { createCluster, pushSampleCluster } from '../ingest/sample.js';
import { pushOk } from '../runtime/support.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { recordingDb } from '../support/recording-db.js';
import { pushScan, SCAN_FILES, scanText } from '../vulnerabilities/support.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  // Both tenants push the same objects and events: the same names, each under its own ids.
  for (const owner of [tenant, other]) {
    const target = { token: owner.adminToken, accountId: owner.accountId };
    const cluster = await createCluster(t, target.token, target.accountId, 'prod');
    await pushSampleCluster(t, target.token, target.accountId, cluster.id);
    await pushOk(t, { ...target, clusterId: cluster.id }, syntheticStream(3000));
    for (const file of SCAN_FILES) {
      const res = await pushScan(t, { ...target, clusterId: cluster.id }, scanText(file));
      assert.equal(res.status, 200, res.text);
    }
  }
});
after(() => t.close());

/** What a page of the list's service takes besides its page (`q`, `filters`, a resource filter). */
type ListQuery = Record<string, string>;

interface CachedList {
  name: string;
  path: string;
  table: string;
  /** queries of the kinds the list serves: the first page, a later one, filtered, searched, past the end */
  pages: string[];
  /** one of `pages` besides the first, as the list's service takes it */
  compared: { page: string; query: ListQuery };
  /** what only the statement reading rows by id holds */
  byIds: string;
  /** an entry's field that is never the same in two tenants (a record's id is its object's uid) */
  tenantUnique?: string;
  /** a page 1 through the list's service on `db`, with `cache` */
  page(db: Database, cache: RowBytesCache, query?: ListQuery): Promise<(string | Buffer)[]>;
  /** a column whose rewrite shows in the entries */
  text: string;
}

const accounts = () =>
  ({ requireAccount: async () => ({ id: tenant.accountId }) }) as unknown as AccountService;

const LISTS: CachedList[] = [
  {
    name: 'inventory containers',
    path: 'inventory_containers',
    table: 'inventory_containers',
    pages: [
      '',
      '?limit=3&offset=2',
      '?sort=created_at:desc&limit=5',
      `?filters=${encodeURIComponent('owner_kind:Deployment')}`,
      '?q=api',
      '?offset=1000',
    ],
    compared: { page: '?q=api', query: { q: 'api' } },
    byIds: 'id = any($2::uuid[])',
    page: (db, entries, query = {}) =>
      createInventoryContainerService({
        db,
        accounts: accounts(),
        entries,
        bookmarksFromOffset: 0,
        searches: new SearchedMatches(),
      }).list({} as Actor, tenant.accountId, { ...query, page: { limit: 100, offset: 0 } }),
    text: 'owner_name',
  },
  {
    name: 'HTTP request observations',
    path: 'container_runtime_insights/http_requests',
    table: 'runtime_http_observations',
    pages: [
      '',
      '?limit=3&offset=2',
      `?filters=${encodeURIComponent('method:GET')}`,
      '?q=api',
      '?offset=1000',
    ],
    compared: { page: '?q=api', query: { q: 'api' } },
    byIds: 'id = any($2::uuid[])',
    page: (db, entries, query = {}) =>
      createHttpObservationService({ db, accounts: accounts(), entries }).list(
        {} as Actor,
        tenant.accountId,
        { ...query, page: { limit: 100, offset: 0 } },
      ),
    text: 'path',
  },
  {
    name: 'inventory packages',
    path: 'inventory_packages',
    table: 'vulnerability_packages',
    pages: [
      '',
      '?limit=3&offset=2',
      '?sort=critical_count:desc&limit=5',
      `?filters=${encodeURIComponent('in_use:true')}`,
      '?q=lib',
      '?offset=1000',
    ],
    compared: { page: '?q=lib', query: { q: 'lib' } },
    byIds: 'id = any($2::uuid[])',
    page: (db, entries, query = {}) =>
      createPackageService({
        db,
        accounts: accounts(),
        entries,
        bookmarksFromOffset: 0,
        searches: new SearchedMatches(),
      }).list({} as Actor, tenant.accountId, {
        ...query,
        page: { limit: 100, offset: 0 },
      }),
    text: 'name',
  },
  {
    name: 'resources',
    path: 'resources',
    table: 'cluster_resources',
    pages: [
      '',
      '?page=2&page_size=3',
      '?sort=kind:desc&page_size=5',
      '?resource_types=Pod',
      '?include_history=true',
      '?with_payload=true',
      '?page=1000',
    ],
    compared: { page: '?resource_types=Pod', query: { resource_types: 'Pod' } },
    byIds: 'unnest($2::uuid[], $3::text[])',
    tenantUnique: 'cluster_id',
    page: (db, entries, query = {}) =>
      createResourceService({
        db,
        accounts: accounts(),
        clusters: {} as ClusterService,
        entries,
        bookmarksFromOffset: 0,
      }).list({} as Actor, tenant.accountId, { ...query, page: { page: 1, pageSize: 50 } }),
    text: 'name',
  },
];

const joined = (parts: (string | Buffer)[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();

/** The statements that write entries' text (db/entry-json.ts): a page read whole, or rows read by id. */
const entryReads = (list: CachedList, statements: string[]) =>
  statements
    .filter((sql) => sql.includes('row_to_json'))
    .map((sql) => (sql.includes(list.byIds) ? 'by id' : 'whole'));

for (const list of LISTS) {
  describe(list.name, () => {
    async function bodies(owner: TestTenant = tenant): Promise<string[]> {
      const texts: string[] = [];
      for (const query of list.pages) {
        const res = await t.request({
          method: 'GET',
          url: `/accounts/${owner.accountId}/${list.path}${query}`,
          token: owner.adminToken,
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)));
        texts.push(res.text);
      }
      return texts;
    }
    const pageOf = async (db: Database, maxBytes: number | RowBytesCache, query?: ListQuery) => {
      const cache = typeof maxBytes === 'number' ? createRowBytesCache({ maxBytes }) : maxBytes;
      return joined(await withSystemScope(() => list.page(db, cache, query)));
    };

    test('every page is the same from the cache as read whole without one; another tenant has its own', async () => {
      const cache = t.app.services.listEntryCache;
      const before = cache.size;
      const first = await bodies();
      const entries = JSON.parse(first[0]!).entries as Record<string, string>[];
      assert.ok(entries.length >= 10, `entries: ${entries.length}`);
      assert.ok(cache.size.entries >= before.entries + entries.length, `held: ${JSON.stringify(cache.size)}`);
      const kept = cache.size;
      assert.deepEqual(await bodies(), first);
      assert.deepEqual(cache.size, kept, 'a second read of the same pages keeps nothing new');

      assert.equal(await pageOf(t.db, 0), first[0]);
      assert.equal(await pageOf(t.db, 0, list.compared.query), first[list.pages.indexOf(list.compared.page)]);

      const field = list.tenantUnique ?? 'id';
      const ids = new Set(entries.map((entry) => entry[field]));
      const theirs = JSON.parse((await bodies(other))[0]!).entries as Record<string, string>[];
      assert.equal(theirs.length, entries.length);
      assert.ok(theirs.every((entry) => !ids.has(entry[field])));
    });

    test('a row rewritten since it was kept is a new row version: its page shows the rewrite', async () => {
      await bodies();
      await bodies(other);
      await withSystemScope(() =>
        // Each row its own text: a package's name and version are unique in its account.
        t.db.query(`update ${list.table} set ${list.text} = 'rewritten-text-' || id where account_id = $1`, [
          tenant.accountId,
        ]),
      );
      assert.match((await bodies())[0]!, new RegExp(`"${list.text}":"rewritten-text-`));
      assert.doesNotMatch((await bodies(other))[0]!, /rewritten-text/);
    });

    test('a page whose rows change between its two reads is read again, whole', async () => {
      const [expected] = await bodies();
      const statements: string[] = [];
      // Every row gets a new version just before the rows are read by id, as a concurrent push would.
      const racing = recordingDb(t.db, statements, async (sql) => {
        if (sql.includes(list.byIds) && sql.includes(list.table)) {
          await t.db.query(`update ${list.table} set id = id where account_id = $1`, [tenant.accountId]);
        }
      });
      assert.equal(await pageOf(racing, 1024 * 1024), expected);
      assert.deepEqual(
        entryReads(list, statements),
        ['by id', 'whole'],
        'the rows by id moved on: the page again, whole',
      );
    });

    test('a cache holding every entry of the page reads only the versions', async () => {
      const [expected] = await bodies();
      const statements: string[] = [];
      const db = recordingDb(t.db, statements);
      const cache = createRowBytesCache({ maxBytes: 1024 * 1024 });
      assert.equal(await pageOf(db, cache), expected);
      assert.deepEqual(entryReads(list, statements), ['by id'], 'an empty cache reads the rows by id');
      statements.length = 0;
      assert.equal(await pageOf(db, cache), expected);
      assert.ok(statements.length > 0, 'the versions were read');
      assert.deepEqual(entryReads(list, statements), [], 'no entry text read');
    });

    test('with the cache off (LIST_ENTRY_CACHE_MB=0) a page reads its rows whole, once', async () => {
      const [expected] = await bodies();
      const statements: string[] = [];
      assert.equal(await pageOf(recordingDb(t.db, statements), 0), expected);
      assert.deepEqual(entryReads(list, statements), ['whole']);
    });
  });
}

test("a package's in_use follows its images' workloads while its row stays as it was", async () => {
  const url = `/accounts/${tenant.accountId}/inventory_packages?limit=1000`;
  const page = async () => {
    const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
    assert.equal(res.status, 200, res.text);
    return res;
  };
  const inUse = (text: string) =>
    (JSON.parse(text).entries as { in_use: boolean }[]).filter((entry) => entry.in_use).length;
  const rowVersions = () =>
    withSystemScope(async () => {
      const { rows } = await t.db.query<{ v: string }>(
        "select string_agg(xmin::text, ',' order by id) as v from vulnerability_packages where account_id = $1",
        [tenant.accountId],
      );
      return rows[0]!.v;
    });
  const kept = (await page()).text;
  assert.ok(inUse(kept) > 0, 'the sample cluster runs scanned images');
  const versions = await rowVersions();

  // What pod churn does to the images' usage: no container of the account runs them any more.
  await withSystemScope(() =>
    t.db.query('delete from vulnerability_image_workloads where account_id = $1', [tenant.accountId]),
  );
  assert.equal(await rowVersions(), versions, 'no package row was written');
  const now = (await page()).text;
  assert.equal(inUse(now), 0);
  const whole = await withSystemScope(() =>
    createPackageService({
      db: t.db,
      accounts: accounts(),
      entries: createRowBytesCache({ maxBytes: 0 }),
      bookmarksFromOffset: 0,
      searches: undefined,
    }).list({} as Actor, tenant.accountId, { page: { limit: 1000, offset: 0 } }),
  );
  assert.equal(now, joined(whole));
});

test('resource pages with the payload are read whole and keep nothing', async () => {
  const cache = createRowBytesCache({ maxBytes: 1024 * 1024 });
  const statements: string[] = [];
  const service = createResourceService({
    db: recordingDb(t.db, statements),
    accounts: accounts(),
    clusters: {} as ClusterService,
    entries: cache,
    bookmarksFromOffset: 0,
  });
  const query = { with_payload: true, page: { page: 1, pageSize: 50 } };
  const page = joined(await withSystemScope(() => service.list({} as Actor, tenant.accountId, query)));
  assert.match(page, /"raw":"/);
  assert.equal(cache.size.entries, 0);
  assert.equal(statements.filter((sql) => sql.includes('row_to_json')).length, 1, 'one whole read');
});
