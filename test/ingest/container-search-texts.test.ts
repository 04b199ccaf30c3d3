/**
 * `q` on inventory containers reads `inventory_container_search_texts` (migration 0061,
 * docs/performance.md "Fix 62"), which triggers on inventory_containers keep: the oracle is the
 * containers' own generated search text and name, and `q` the case-insensitive substring of a
 * searched field. Each step goes through the ingestion endpoint: a cluster's first push, a pod's
 * new version that changes nothing searched (heap-only: its texts are not written), one that
 * changes an image and a container, a DELETED watch event; then the migration's backfill.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { containerSearchTexts } from '../../src/db/migrations/0061-container-search-texts.js';
import { migrate } from '../../src/db/migrator.js';
import { containsPattern } from '../../src/http/search.js';
import { CONTAINER_SEARCH_FIELDS } from '../../src/modules/inventory-containers/schemas.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  createCluster,
  type KubeJson,
  list,
  push,
  pushSampleCluster,
  rolledOut,
  sampleObject,
  sampleText,
} from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** Every container of the account has one text, equal to its own; no text outlives its container. */
async function assertTextsFollowContainers(tenant: TestTenant, step: string) {
  const { rows } = await t.db.query<{ id: string | null; container_id: string | null }>(
    `select c.id, s.container_id
       from (select * from inventory_containers where account_id = $1) c
       full join (select * from inventory_container_search_texts where account_id = $1) s
         on s.container_id = c.id and s.name = c.name and s.search_text = c.search_text
      where c.id is null or s.container_id is null`,
    [tenant.accountId],
  );
  assert.deepEqual(rows, [], `${step}: texts that differ from their containers`);
}

/** The ids of the account's containers with a searched field containing `q`, read from the table. */
async function matching(tenant: TestTenant, q: string): Promise<string[]> {
  const { rows } = await t.db.query<{ id: string }>(
    `select id from inventory_containers
      where account_id = $1
        and (${CONTAINER_SEARCH_FIELDS.map((field) => `(${field} collate "default") ilike $2`).join(' or ')})`,
    [tenant.accountId, containsPattern(q)],
  );
  return rows.map((row) => row.id).sort();
}

/** The ids of a page of the account's containers list (`query`, a query string), and its total. */
async function listed(tenant: TestTenant, query: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/inventory_containers?${query}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return {
    ids: (res.body.entries as { id: string }[]).map((entry) => entry.id),
    total: res.body.total_count,
  };
}

const searched = (tenant: TestTenant, q: string, sort = 'name:asc') =>
  listed(tenant, `limit=1000&q=${encodeURIComponent(q)}&sort=${sort}`);

async function assertSearchesAsTheTable(tenant: TestTenant, phrases: string[], step: string) {
  for (const q of phrases) {
    const expected = await matching(tenant, q);
    const found = await searched(tenant, q);
    assert.deepEqual([...found.ids].sort(), expected, `${step}: q=${q}`);
    assert.equal(found.total, expected.length, `${step}: total of q=${q}`);
  }
}

const textVersions = async (tenant: TestTenant, ids: string[]) =>
  (
    await t.db.query<{ container_id: string; version: string }>(
      `select container_id, xmin::text as version from inventory_container_search_texts
        where account_id = $1 and container_id = any($2::uuid[]) order by container_id`,
      [tenant.accountId, ids],
    )
  ).rows;

test("the containers' search texts follow their inserts, updates and deletes", async () => {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, clusterId);
  await assertTextsFollowContainers(tenant, 'first push');
  const phrases = [
    'api',
    'LOG-SHIP',
    'storefront/',
    '9.9.9',
    'envoy',
    'feedface',
    'prod',
    'no-such-container',
  ];
  await assertSearchesAsTheTable(tenant, phrases, 'first push');
  assert.ok((await matching(tenant, 'api')).length >= 2, 'a phrase with several matches');

  const v1: KubeJson = sampleObject('Pod', 'storefront', 'api-h9q9d9jrtg-4hj9v');
  const podIds = async () =>
    (
      await t.db.query<{ id: string }>(
        'select id from inventory_containers where account_id = $1 and pod_uid = $2 order by id',
        [tenant.accountId, v1.metadata.uid],
      )
    ).rows.map((row) => row.id);
  const pushVersion = async (pod: KubeJson) => {
    const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, list([pod]));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.created, 1, 'a new version of the pod');
  };

  // A version that changes nothing searched rewrites the containers (their record id), not their texts.
  const before = await textVersions(tenant, await podIds());
  assert.equal(before.length, 2);
  const v2 = structuredClone(v1);
  v2.metadata.resourceVersion = '900001';
  v2.metadata.labels = { ...v2.metadata.labels, rollout: 'two' };
  await pushVersion(v2);
  assert.deepEqual(await textVersions(tenant, await podIds()), before, 'no text written');
  await assertTextsFollowContainers(tenant, 'a version changing nothing searched');

  // The api container's new image is found by its tag, the log shipper is gone, the proxy is new.
  const v3 = rolledOut(v2, '900002');
  await pushVersion(v3);
  await assertTextsFollowContainers(tenant, 'a version changing an image and a container');
  await assertSearchesAsTheTable(tenant, phrases, 'a version changing an image and a container');
  assert.equal((await matching(tenant, '9.9.9')).length, 1, 'the new tag is found');
  assert.equal((await matching(tenant, 'feedface')).length, 1, 'the new container is found');

  // A DELETED watch event removes the pod's containers and their texts.
  const res = await push(
    t,
    tenant.adminToken,
    tenant.accountId,
    clusterId,
    sampleText('05-watch-events.ndjson'),
    {
      headers: { 'content-type': 'application/x-ndjson' },
    },
  );
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.deleted >= 1, 'the events delete a pod');
  await assertTextsFollowContainers(tenant, 'a DELETED event');
  await assertSearchesAsTheTable(tenant, phrases, 'a DELETED event');
});

test("a search in name order, either way and past the end, is the table's matches in that order", async () => {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, clusterId);
  const q = 'api';
  const all = (
    await t.db.query<{ id: string }>(
      'select id from inventory_containers where account_id = $1 and id = any($2::uuid[]) order by name, id',
      [tenant.accountId, await matching(tenant, q)],
    )
  ).rows.map((row) => row.id);
  assert.ok(all.length >= 3, 'enough matches to page through');
  assert.deepEqual((await searched(tenant, q)).ids, all);
  assert.deepEqual((await searched(tenant, q, 'name:desc')).ids, [...all].reverse());
  const page = (query: string) => listed(tenant, `q=${q}&${query}`);
  for (let offset = 0; offset <= all.length + 1; offset++) {
    assert.deepEqual(
      await page(`limit=2&offset=${offset}&sort=name:asc`),
      { ids: all.slice(offset, offset + 2), total: all.length },
      `asc from ${offset}`,
    );
    assert.deepEqual(
      await page(`limit=2&offset=${offset}&sort=name:desc`),
      { ids: [...all].reverse().slice(offset, offset + 2), total: all.length },
      `desc from ${offset}`,
    );
  }
});

test('the migration writes the texts of containers stored before it, and can run again', async () => {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, clusterId);
  await t.db.query('delete from inventory_container_search_texts where account_id = $1', [tenant.accountId]);
  assert.deepEqual((await searched(tenant, 'api')).ids, []);
  await migrate(t.db, [{ ...containerSearchTexts, id: `${containerSearchTexts.id}-again` }]);
  await assertTextsFollowContainers(tenant, 'the migration run again');
  await assertSearchesAsTheTable(tenant, ['api', 'storefront/'], 'the migration run again');
});
