/**
 * The live resources list starts a page from a row it has seen nearby (page-bookmarks.ts), while
 * the list's generation (migration 0054) is the one that row was seen in: pages read in any order,
 * again, or after the list changed are still the one ordered list cut in pieces, and the page
 * statement seeks from the bookmark only while nothing changed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCluster, type KubeJson } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { readingsRun, recordingExecutor } from '../../../test/support/page-readings.js';
import { assertPagesCutTheList } from '../../../test/support/paged-list.js';
import { parseSort } from '../../http/sort.js';
import { PageBookmarks } from '../list-totals/page-bookmarks.js';
import { listResourceVersions, type ResourcePageQuery } from './repository.js';
import { RESOURCE_SORT_FIELDS } from './schemas.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let clusters: string[];
let otherCluster: string;

async function insert(accountId: string, clusterId: string, name: string, i: number) {
  await t.db.query(
    `insert into cluster_resources (account_id, cluster_id, id, uid, resource_version, kind, api_version, name,
       namespace, ingested_at, watched_at, entity_type, is_latest, raw)
     values ($1, $2, $3, $3, '1', $4, 'v1', $5, $6, now(), now(), 'configuration', true, '{}')`,
    [accountId, clusterId, `r-${randomUUID()}`, i % 3 === 0 ? 'Secret' : 'ConfigMap', name, `ns-${i % 4}`],
  );
}

/** The account's live list in one page: nothing to seek or skip. */
async function whole(tenantOf: TestTenant, sort: string): Promise<string[]> {
  const body = await page(tenantOf, `?page_size=1000&sort=${sort}`);
  return body.entries.map((r: KubeJson) => `${r.cluster_id}/${r.id}`);
}

async function page(tenantOf: TestTenant, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenantOf.accountId}/resources${query}`,
    token: tenantOf.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function pageIds(tenantOf: TestTenant, sort: string, number: number): Promise<string[]> {
  const body = await page(tenantOf, `?page_size=4&page=${number}&sort=${sort}`);
  return body.entries.map((r: KubeJson) => `${r.cluster_id}/${r.id}`);
}

const generations = async () =>
  (
    await t.db.query<{ generation: string }>(
      `select generation from cluster_list_totals
        where account_id = $1 and list = 'cluster_resources_live' order by cluster_id`,
      [tenant.accountId],
    )
  ).rows.map((row) => Number(row.generation));

before(async () => {
  // Every page past the first takes bookmarks: the lists here are tens of rows, not thousands.
  t = await startTestApp({ LIST_BOOKMARKS_FROM_OFFSET: 0 });
  tenant = await createTenant(t);
  other = await createTenant(t);
  clusters = [
    (await createCluster(t, tenant.adminToken, tenant.accountId, 'one')).id,
    (await createCluster(t, tenant.adminToken, tenant.accountId, 'two')).id,
  ];
  otherCluster = (await createCluster(t, other.adminToken, other.accountId, 'theirs')).id;
  for (let i = 0; i < 30; i++) {
    // ties on every sort: five rows share each name
    await insert(tenant.accountId, clusters[i % 2]!, `name-${i % 6}`, i);
  }
  for (let i = 0; i < 12; i++) await insert(other.accountId, otherCluster, `name-${i % 6}`, i);
});
after(() => t.close());

/** Pages of four live versions by name, at an offset, taking bookmarks from `marks`. */
const liveNames =
  (marks: PageBookmarks) =>
  (offset: number): ResourcePageQuery => ({
    filters: {
      clusterIds: [],
      namespaces: [],
      ownerUids: [],
      imageDigests: [],
      kinds: [],
      includeHistory: false,
    },
    sort: parseSort('name:asc', RESOURCE_SORT_FIELDS, 'name:asc'),
    page: { offset, limit: 4 },
    withPayload: false,
    bookmarks: marks,
  });

describe('resources: pages from bookmarks', () => {
  test('pages read in order, again and out of order are the list cut in pieces, for each bookmarked sort', async () => {
    for (const field of ['name', 'namespace', 'kind', 'ingested_at']) {
      for (const direction of ['asc', 'desc']) {
        const sort = `${field}:${direction}`;
        const all = await whole(tenant, sort);
        assert.equal(all.length, 30);
        // pages 5, 5, 6, 3, 7, 2, 6
        await assertPagesCutTheList(all, (offset) => pageIds(tenant, sort, offset / 4 + 1), {
          size: 4,
          again: [16, 16, 20, 8, 24, 4, 20],
          message: sort,
        });
      }
    }
  });

  test("a page before the bookmarks' first offset reads no generation and leaves no bookmark", async () => {
    const query = liveNames(new PageBookmarks({ fromOffset: 12 }));
    const { executor, statements } = recordingExecutor(t.db);
    await listResourceVersions(executor, tenant.accountId, query(8));
    assert.doesNotMatch(statements[0]!.sql, /list_generation/);
    // Rows 8 to 11 were not kept: offset 12 walks from the start, and keeps its rows.
    await listResourceVersions(executor, tenant.accountId, query(12));
    assert.match(statements[2]!.sql, /list_generation/);
    assert.doesNotMatch(statements[2]!.sql, /from_bookmark/);
    await listResourceVersions(executor, tenant.accountId, query(16));
    assert.deepEqual(await readingsRun(t.db, statements[4]!), ['from_bookmark']);
  });

  test('a page seeks from the bookmark while the list is unchanged, and walks once it changed', async () => {
    const query = liveNames(new PageBookmarks({ fromOffset: 0 }));
    // Rows 8 to 11 seen: offset 12 is one row past the last of them.
    await listResourceVersions(t.db, tenant.accountId, query(8));
    const { executor, statements } = recordingExecutor(t.db);
    const { rows } = await listResourceVersions(executor, tenant.accountId, query(12));
    assert.deepEqual(
      rows.map((row) => row.id),
      (await whole(tenant, 'name:asc')).slice(12, 16),
    );
    const readings = () => readingsRun(t.db, statements[0]!);
    assert.deepEqual(await readings(), ['from_bookmark']);
    await insert(tenant.accountId, clusters[0]!, 'name-0', 99);
    assert.deepEqual(await readings(), ['from_start'], 'the list changed: the bookmark is not used');
  });

  test('every change to the live versions moves the generation, and pages stay right', async () => {
    const sort = 'name:asc';
    const check = async (message: string) => {
      const all = await whole(tenant, sort);
      for (const n of [3, 4, 3])
        assert.deepEqual(await pageIds(tenant, sort, n), all.slice((n - 1) * 4, n * 4), message);
    };
    await check('before');
    let last = await generations();
    const moved = async (what: string) => {
      const now = await generations();
      assert.ok(
        now.some((generation, i) => generation > last[i]!),
        `${what}: ${last} -> ${now}`,
      );
      last = now;
      await check(what);
    };
    await insert(tenant.accountId, clusters[1]!, 'name-00', 100);
    await moved('a new row sorting early');
    const [first, second] = (
      await t.db.query<{ id: string }>(
        `select id from cluster_resources where account_id = $1 and name = 'name-1' order by id`,
        [tenant.accountId],
      )
    ).rows;
    await t.db.query(
      `update cluster_resources set deleted_at = now(), deletion_source = 'watch' where account_id = $1 and id = $2`,
      [tenant.accountId, first!.id],
    );
    await moved('a row deleted');
    // One statement restoring one row and deleting another: the total does not move, the list does.
    await t.db.query(
      `update cluster_resources
          set deleted_at = case when id = $2 then null else now() end,
              deletion_source = case when id = $2 then null else 'watch' end
        where account_id = $1 and id = any(array[$2, $3])`,
      [tenant.accountId, first!.id, second!.id],
    );
    await moved('one restored and one deleted at once');
    // No writer of Posture changes a live version's sort columns (a new version is a new row),
    // but one that did would still move the generation.
    await t.db.query(`update cluster_resources set name = 'aaa' where account_id = $1 and id = $2`, [
      tenant.accountId,
      first!.id,
    ]);
    await moved('a live row renamed');
  });

  test("another account's pages are its own", async () => {
    for (const sort of ['name:asc', 'kind:desc']) {
      await pageIds(tenant, sort, 2);
      const all = await whole(other, sort);
      assert.equal(all.length, 12);
      for (const n of [2, 3, 2])
        assert.deepEqual(await pageIds(other, sort, n), all.slice((n - 1) * 4, n * 4));
    }
  });
});
