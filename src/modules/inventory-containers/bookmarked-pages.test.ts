/**
 * The unfiltered containers list starts a page from a row it has seen nearby (page-bookmarks.ts),
 * while the list's generation (migration 0056) is the one that row was seen in: pages read in any
 * order, again, or after the list changed are still the one ordered list cut in pieces, and the
 * page statement seeks from the bookmark only while nothing changed. Containers are also updated
 * in place (a pod's new version, an owner resolved again), so an update moves the generation too.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCluster, type KubeJson } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';
import { readingsRun, recordingExecutor } from '../../../test/support/page-readings.js';
import { assertPagesCutTheList } from '../../../test/support/paged-list.js';
import { parseFilters } from '../../http/filters.js';
import { parseSort } from '../../http/sort.js';
import { PageBookmarks } from '../list-totals/page-bookmarks.js';
import { type ContainerListQuery, listContainerVersions } from './repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from './schemas.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let clusters: string[];
let otherCluster: string;

/** A container whose every sorted value is shared with others: ties on every sort. */
async function insert(accountId: string, clusterId: string, i: number) {
  const tie = (prefix: string) => `${prefix}${i % 5}`;
  await t.db.query(
    `insert into inventory_containers (account_id, id, cluster_id, cluster_name, pod_uid, pod_resource_id,
       pod_name, pod_namespace, name, container_id, container_runtime, image, image_repo, image_name,
       image_tag, image_digest, owner_uid, owner_kind, owner_name, owner_namespace,
       owner_resource_version, owner_id, created_at)
     values ($1, $2, $3, $4, $5, '', $6, 'ns', $7, $8, 'containerd', '', $9, $10, $11, $12, 'uid', $13,
             $14, $15, '1', '', $16)`,
    [
      accountId,
      randomUUID(),
      clusterId,
      tie('cluster-'),
      randomUUID(),
      `pod${i}`,
      tie('name-'),
      tie('cid-'),
      tie('registry.example/repo'),
      tie('image'),
      tie('v'),
      tie('sha256:'),
      i % 2 === 0 ? 'Deployment' : 'StatefulSet',
      tie('owner'),
      tie('space'),
      `2026-01-0${1 + (i % 5)}T00:00:00.000Z`,
    ],
  );
}

async function page(tenantOf: TestTenant, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenantOf.accountId}/inventory_containers${query}`,
    token: tenantOf.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

async function pageIds(tenantOf: TestTenant, sort: string, number: number): Promise<string[]> {
  const body = await page(tenantOf, `?limit=4&offset=${(number - 1) * 4}&sort=${sort}`);
  return body.entries.map((c: KubeJson) => c.id);
}

/** The account's list in one page: nothing to seek or skip. */
async function whole(tenantOf: TestTenant, sort: string): Promise<string[]> {
  const body = await page(tenantOf, `?limit=1000&sort=${sort}`);
  return body.entries.map((c: KubeJson) => c.id);
}

const generations = async () =>
  (
    await t.db.query<{ generation: string }>(
      `select generation from cluster_list_totals
        where account_id = $1 and list = 'inventory_containers' order by cluster_id`,
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
  for (let i = 0; i < 30; i++) await insert(tenant.accountId, clusters[i % 2]!, i);
  for (let i = 0; i < 12; i++) await insert(other.accountId, otherCluster, i);
});
after(() => t.close());

describe('inventory containers: pages from bookmarks', () => {
  test('pages read in order, again and out of order are the list cut in pieces, for every sort', async () => {
    for (const field of CONTAINER_SORT_FIELDS) {
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

  test('a page seeks from the bookmark while the list is unchanged, and walks once it changed', async () => {
    const marks = new PageBookmarks({ fromOffset: 0 });
    const query = (offset: number): ContainerListQuery => ({
      filters: parseFilters(undefined, CONTAINER_FILTER_KEYS),
      searchPath: 'function',
      sort: parseSort('owner_name:desc', CONTAINER_SORT_FIELDS, 'name:asc'),
      page: { offset, limit: 4 },
      bookmarks: marks,
    });
    // Rows 8 to 11 seen: offset 12 is one row past the last of them.
    await listContainerVersions(t.db, tenant.accountId, query(8));
    const { executor, statements } = recordingExecutor(t.db);
    const { rows } = await listContainerVersions(executor, tenant.accountId, query(12));
    assert.deepEqual(
      rows.map((row) => row.id),
      (await whole(tenant, 'owner_name:desc')).slice(12, 16),
    );
    const readings = () => readingsRun(t.db, statements[0]!);
    assert.deepEqual(await readings(), ['from_bookmark']);
    await t.db.query(
      `update inventory_containers set owner_name = 'owner9' where account_id = $1 and name = 'name-3'`,
      [tenant.accountId],
    );
    assert.deepEqual(await readings(), ['from_start'], 'the list changed: the bookmark is not used');
  });

  test('every write to the containers moves the generation, and pages stay right', async () => {
    const sort = 'image_tag:asc';
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
    await insert(tenant.accountId, clusters[1]!, 100);
    await moved('a new container');
    const [first, second] = (
      await t.db.query<{ id: string }>(
        `select id from inventory_containers where account_id = $1 and image_tag = 'v1' order by id`,
        [tenant.accountId],
      )
    ).rows;
    await t.db.query('delete from inventory_containers where account_id = $1 and id = $2', [
      tenant.accountId,
      first!.id,
    ]);
    await moved('a container deleted');
    // A pod's new version running another image: the row is rewritten in place.
    await t.db.query(`update inventory_containers set image_tag = 'v0' where account_id = $1 and id = $2`, [
      tenant.accountId,
      second!.id,
    ]);
    await moved('a container updated in place');
    const unchanged = await generations();
    await t.db.query(`update inventory_containers set image_tag = 'v0' where account_id = $1 and false`, [
      tenant.accountId,
    ]);
    assert.deepEqual(await generations(), unchanged, 'a statement that updates no row moves nothing');
  });

  test("another account's pages are its own", async () => {
    for (const sort of ['name:asc', 'created_at:desc']) {
      await pageIds(tenant, sort, 2);
      const all = await whole(other, sort);
      assert.equal(all.length, 12);
      for (const n of [2, 3, 2])
        assert.deepEqual(await pageIds(other, sort, n), all.slice((n - 1) * 4, n * 4));
    }
  });
});
