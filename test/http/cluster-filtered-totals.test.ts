/**
 * A list filtered by clusters alone reads its `total_count` from the totals kept per cluster at
 * ingestion (modules/list-totals, keptPerClusterTotal; docs/performance.md "Fix 76"), and so do
 * the resources filtered by kinds, with or without clusters (keptLiveResourcesTotal, migration
 * 0064); either may read a page past the middle from the list's end. Every such total must equal
 * a count of the rows, for one cluster, both, one named twice, one of another tenant and one that
 * does not exist; a page from the end must hold the rows a forward read does. Any other filter
 * beside the clusters is still counted: the kept rows are made wrong on purpose to tell which
 * source a total came from. The containers filtered by one key of KEPT_CONTAINER_KEYS (any of its
 * values, with or without clusters) read the totals kept per cluster and value (keptContainersTotal,
 * migration 0065, "Fix 77"), under the same checks. Migrations 0064's and 0065's counts of the
 * rows stored before them must give the rows their triggers keep.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KIND_TOTALS_OF_STORED_VERSIONS } from '../../src/db/migrations/0064-live-resource-kind-totals.js';
import { VALUE_TOTALS_OF_STORED_CONTAINERS } from '../../src/db/migrations/0065-container-value-totals.js';
import { withSystemScope } from '../../src/db/scope.js';
import { syntheticStream } from '../../src/engines/runtime/sample/bench.js';
import { KEPT_CONTAINER_KEYS } from '../../src/modules/list-totals/repository.js';
import { createCluster, push, pushSampleCluster, sampleObject } from '../ingest/sample.js';
import { pushOk } from '../runtime/support.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
/** the tenant's two clusters, then the other tenant's one */
let clusters: { a: string; b: string; foreign: string };

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);
  const pushed: string[] = [];
  // The same objects and events in each cluster, each under its own ids; the second cluster gets
  // fewer events, so the clusters' runtime lists differ in size.
  for (const [owner, name, events] of [
    [tenant, 'prod', 3000],
    [tenant, 'staging', 1200],
    [other, 'prod', 3000],
  ] as const) {
    const cluster = await createCluster(t, owner.adminToken, owner.accountId, name);
    await pushSampleCluster(t, owner.adminToken, owner.accountId, cluster.id);
    const target = { token: owner.adminToken, accountId: owner.accountId, clusterId: cluster.id };
    await pushOk(t, target, syntheticStream(events));
    pushed.push(cluster.id);
  }
  clusters = { a: pushed[0]!, b: pushed[1]!, foreign: pushed[2]! };
  // In the first cluster one pod gets a new version and another is deleted: its resources' history
  // holds versions its live list does not.
  const event = (type: string, object: object) => JSON.stringify({ type, object });
  const modified = sampleObject('Pod', 'storefront', 'redis-0');
  modified.metadata.resourceVersion = '990001';
  modified.metadata.labels = { ...modified.metadata.labels, rollout: 'two' };
  const deleted = sampleObject('Pod', 'payments', 'debug-shell');
  deleted.metadata.resourceVersion = '990002';
  const res = await push(
    t,
    tenant.adminToken,
    tenant.accountId,
    clusters.a,
    `${event('MODIFIED', modified)}\n${event('DELETED', deleted)}\n`,
    { headers: { 'content-type': 'application/x-ndjson' } },
  );
  assert.equal(res.status, 200, res.text);
});
after(() => t.close());

interface ClusterList {
  path: string;
  /** the list's rows as the table and the kept totals' list name */
  table: string;
  kept: { table: 'cluster_list_totals' | 'runtime_list_totals'; list: string };
  /** the rows the list holds besides the account and the clusters */
  definition?: string;
  paging: 'offset' | 'page';
  /** the query parameters of a filter by these clusters */
  byClusters: (ids: string[]) => string;
  /** the same clusters with one more filter, which is counted */
  narrower: { query: (ids: string[]) => string; where: string };
}

const filters = (ids: string[], ...more: string[]) =>
  `filters=${encodeURIComponent([...ids.map((id) => `cluster_id:${id}`), ...more].join(','))}`;

const LISTS: ClusterList[] = [
  {
    path: 'inventory_containers',
    table: 'inventory_containers',
    kept: { table: 'cluster_list_totals', list: 'inventory_containers' },
    paging: 'offset',
    byClusters: (ids) => filters(ids),
    // Two keys of KEPT_CONTAINER_KEYS: each is kept, what both select is counted.
    narrower: {
      query: (ids) => filters(ids, 'name:api', 'owner_kind:Deployment'),
      where: "name = 'api' and owner_kind = 'Deployment'",
    },
  },
  {
    path: 'resources',
    table: 'cluster_resources',
    kept: { table: 'cluster_list_totals', list: 'cluster_resources_live' },
    definition: 'is_latest and deleted_at is null',
    paging: 'page',
    byClusters: (ids) => `cluster_id=${ids.join(',')}`,
    narrower: { query: (ids) => `cluster_id=${ids.join(',')}&resource_types=Pod`, where: "kind = 'Pod'" },
  },
  {
    path: 'identities',
    table: 'identities',
    kept: { table: 'cluster_list_totals', list: 'identities' },
    paging: 'page',
    byClusters: (ids) => `identity_sources=${ids.join(',')}`,
    narrower: {
      query: (ids) => `identity_sources=${ids.join(',')}&identity_types=k8s_service_account`,
      where: "type = 'k8s_service_account'",
    },
  },
  {
    path: 'container_runtime_insights/http_requests',
    table: 'runtime_http_observations',
    kept: { table: 'runtime_list_totals', list: 'runtime_http_observations' },
    paging: 'offset',
    byClusters: (ids) => filters(ids),
    narrower: { query: (ids) => filters(ids, 'method:GET'), where: "method = 'GET'" },
  },
  {
    path: 'container_runtime_latest_baseline_fingerprints',
    table: 'runtime_baselines',
    kept: { table: 'runtime_list_totals', list: 'runtime_baselines' },
    paging: 'page',
    byClusters: (ids) => filters(ids),
    narrower: {
      query: (ids) => filters(ids, 'workload_kind:Deployment'),
      where: "workload_kind = 'Deployment'",
    },
  },
  {
    path: 'container_runtime_insights',
    table: 'runtime_insights',
    kept: { table: 'runtime_list_totals', list: 'runtime_insights' },
    paging: 'offset',
    byClusters: (ids) => filters(ids),
    narrower: {
      query: (ids) => `${filters(ids)}&container_ids=${'0'.repeat(12)}`,
      where: 'false',
    },
  },
];

/** The cluster sets each list is filtered by. */
const clusterSets = () => [
  [clusters.a],
  [clusters.b],
  [clusters.a, clusters.b],
  [clusters.a, clusters.a],
  [clusters.foreign],
  [crypto.randomUUID()],
];

async function get(list: ClusterList, query: string, page: { size: number; index: number }) {
  const paging =
    list.paging === 'offset'
      ? `limit=${page.size}&offset=${page.index * page.size}`
      : `page=${page.index + 1}&page_size=${page.size}`;
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/${list.path}?${query}&${paging}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, `${list.path}?${query}: ${res.text}`);
  return res.body as { entries: { id: string }[]; total_count: number };
}

/** The oracle: the rows of the list in these clusters, counted in the table. */
async function counted(list: ClusterList, ids: string[], where = 'true') {
  const { rows } = await withSystemScope(() =>
    t.db.query<{ total: string }>(
      `select count(*) as total from ${list.table}
        where account_id = $1 and cluster_id = any($2::uuid[]) and ${list.definition ?? 'true'} and ${where}`,
      [tenant.accountId, ids],
    ),
  );
  return Number(rows[0]!.total);
}

/** Moves a cluster's kept total by `delta`, to tell a kept total from a counted one. */
function skewKept(list: ClusterList, clusterId: string, delta: number) {
  return withSystemScope(() =>
    t.db.query(
      `update ${list.kept.table} set total = total + $4 where account_id = $1 and list = $2 and cluster_id = $3`,
      [tenant.accountId, list.kept.list, clusterId, delta],
    ),
  );
}

/** The entry ids of the whole list, read forwards a page of 100 at a time. */
async function readForwards(list: ClusterList, query: string) {
  const ids: string[] = [];
  for (let index = 0; ; index++) {
    const { entries } = await get(list, query, { size: 100, index });
    ids.push(...entries.map((entry) => entry.id));
    if (entries.length < 100) return ids;
  }
}

test('each list filtered by clusters alone totals what a count of its rows gives', async () => {
  for (const list of LISTS) {
    for (const ids of clusterSets()) {
      const { total_count } = await get(list, list.byClusters(ids), { size: 5, index: 0 });
      assert.equal(total_count, await counted(list, ids), `${list.path} by ${ids.length} cluster(s)`);
    }
    assert.ok((await counted(list, [clusters.a])) > 0, `${list.path}: the first cluster has rows`);
    assert.notEqual(
      await counted(list, [clusters.a]),
      await counted(list, [clusters.a, clusters.b]),
      `${list.path}: the second cluster has rows too`,
    );
  }
});

test('a page past the middle of a cluster-filtered list holds the rows a forward read does', async () => {
  for (const list of LISTS) {
    const query = list.byClusters([clusters.a]);
    const all = await readForwards(list, query);
    assert.equal(all.length, await counted(list, [clusters.a]), list.path);
    const size = 3;
    // The last full page, the page holding the end, and the one after it (empty).
    const pages = Math.ceil(all.length / size);
    for (const index of [pages - 2, pages - 1, pages]) {
      if (index < 0) continue;
      const { entries } = await get(list, query, { size, index });
      assert.deepEqual(
        entries.map((entry) => entry.id),
        all.slice(index * size, index * size + size),
        `${list.path} page ${index} of ${pages}`,
      );
    }
  }
});

test('the kept totals answer a filter by clusters alone, and no other filter', async () => {
  for (const list of LISTS) {
    const truth = await counted(list, [clusters.a]);
    await skewKept(list, clusters.a, 1000);
    try {
      const kept = await get(list, list.byClusters([clusters.a]), { size: 1, index: 0 });
      assert.equal(kept.total_count, truth + 1000, `${list.path}: the kept total is read`);
      const narrower = await get(list, list.narrower.query([clusters.a]), { size: 1, index: 0 });
      assert.equal(
        narrower.total_count,
        await counted(list, [clusters.a], list.narrower.where),
        `${list.path}: a second filter is counted`,
      );
    } finally {
      await skewKept(list, clusters.a, -1000);
    }
  }
});

test('HTTP requests by two different cluster parameters are their intersection, counted', async () => {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/container_runtime_insights/http_requests?cluster_ids=${clusters.a}&${filters([clusters.b])}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual([res.body.total_count, res.body.entries.length], [0, 0]);
});

test('resources with their history by cluster count every version', async () => {
  const live = await counted(LISTS.find((list) => list.path === 'resources')!, [clusters.a]);
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources?cluster_id=${clusters.a}&include_history=true&page_size=1`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  const { rows } = await withSystemScope(() =>
    t.db.query<{ total: string }>(
      'select count(*) as total from cluster_resources where account_id = $1 and cluster_id = $2',
      [tenant.accountId, clusters.a],
    ),
  );
  assert.equal(res.body.total_count, Number(rows[0]!.total));
  assert.ok(res.body.total_count >= live + 2, 'the history holds the two old versions');
});

/** The resources list's live versions of these kinds (and clusters), counted in the table. */
async function countedKinds(kinds: string[], clusterIds?: string[], where = 'true') {
  const { rows } = await withSystemScope(() =>
    t.db.query<{ total: string }>(
      `select count(*) as total from cluster_resources
        where account_id = $1 and is_latest and deleted_at is null and kind = any($2::text[])
          and ($3::uuid[] is null or cluster_id = any($3::uuid[])) and ${where}`,
      [tenant.accountId, kinds, clusterIds ?? null],
    ),
  );
  return Number(rows[0]!.total);
}

const RESOURCES = LISTS.find((list) => list.path === 'resources')!;
const byKinds = (kinds: string[], clusterIds?: string[]) =>
  `resource_types=${kinds.join(',')}${clusterIds ? `&cluster_id=${clusterIds.join(',')}` : ''}`;

test('resources filtered by kinds, of every cluster or some, total what a count gives', async () => {
  const cases: [string[], string[] | undefined][] = [
    [['Pod'], undefined],
    [['Pod', 'ServiceAccount'], undefined],
    [['Pod', 'Pod'], undefined],
    [['NoSuchKind'], undefined],
    [['Pod'], [clusters.a]],
    [
      ['Pod', 'Deployment'],
      [clusters.a, clusters.b],
    ],
    [['Pod'], [clusters.foreign]],
  ];
  for (const [kinds, clusterIds] of cases) {
    const { total_count } = await get(RESOURCES, byKinds(kinds, clusterIds), { size: 5, index: 0 });
    assert.equal(total_count, await countedKinds(kinds, clusterIds), byKinds(kinds, clusterIds));
  }
  // The deleted pod and the pod's overwritten version are in the first cluster's history only.
  assert.notEqual(await countedKinds(['Pod'], [clusters.a]), await countedKinds(['Pod'], [clusters.b]));

  const query = byKinds(['Pod']);
  const all = await readForwards(RESOURCES, query);
  assert.equal(all.length, await countedKinds(['Pod']));
  const last = Math.ceil(all.length / 3) - 1;
  const { entries } = await get(RESOURCES, query, { size: 3, index: last });
  assert.deepEqual(
    entries.map((entry) => entry.id),
    all.slice(last * 3),
    'the last page, read from the end',
  );
});

test('the kinds kept answer kinds and clusters alone, and no other filter', async () => {
  const skewKind = (delta: number) =>
    withSystemScope(() =>
      t.db.query(
        `update live_resource_kind_totals set total = total + $3
          where account_id = $1 and cluster_id = $2 and kind = 'Pod'`,
        [tenant.accountId, clusters.a, delta],
      ),
    );
  const truth = await countedKinds(['Pod']);
  await skewKind(1000);
  try {
    const totalOf = async (query: string) => (await get(RESOURCES, query, { size: 1, index: 0 })).total_count;
    assert.equal(await totalOf(byKinds(['Pod'])), truth + 1000);
    assert.equal(
      await totalOf(byKinds(['Pod'], [clusters.a])),
      (await countedKinds(['Pod'], [clusters.a])) + 1000,
    );
    assert.equal(await totalOf(byKinds(['Pod'], [clusters.b])), await countedKinds(['Pod'], [clusters.b]));
    assert.equal(
      await totalOf(`${byKinds(['Pod'])}&namespace=storefront`),
      await countedKinds(['Pod'], undefined, "namespace = 'storefront'"),
      'a namespace beside the kinds is counted',
    );
  } finally {
    await skewKind(-1000);
  }
});

const CONTAINERS = LISTS.find((list) => list.path === 'inventory_containers')!;

/** The containers of these values of `key` (and clusters), counted in the table. */
async function countedValues(key: string, values: string[], clusterIds?: string[], where = 'true') {
  const { rows } = await withSystemScope(() =>
    t.db.query<{ total: string }>(
      `select count(*) as total from inventory_containers
        where account_id = $1 and ${key} = any($2::text[])
          and ($3::uuid[] is null or cluster_id = any($3::uuid[])) and ${where}`,
      [tenant.accountId, values, clusterIds ?? null],
    ),
  );
  return Number(rows[0]!.total);
}

/** The tenant's two most common values of a container's `key`, most common first. */
async function commonValues(key: string): Promise<[string, string]> {
  const { rows } = await withSystemScope(() =>
    t.db.query<{ value: string }>(
      `select ${key} as value from inventory_containers where account_id = $1
        group by ${key} order by count(*) desc, ${key} limit 2`,
      [tenant.accountId],
    ),
  );
  assert.equal(rows.length, 2, `the sample has two values of ${key}`);
  return [rows[0]!.value, rows[1]!.value];
}

const byValues = (key: string, values: string[], clusterIds: string[] = []) =>
  filters(clusterIds, ...values.map((value) => `${key}:${value}`));

test('containers filtered by one kept key, of every cluster or some, total what a count gives', async () => {
  for (const key of KEPT_CONTAINER_KEYS) {
    const [first, second] = await commonValues(key);
    const cases: [string[], string[] | undefined][] = [
      [[first], undefined],
      [[first, second], undefined],
      [[first, first], undefined],
      [['no-such-value'], undefined],
      [[first], [clusters.a]],
      [[second], [clusters.a, clusters.b]],
      [[first], [clusters.foreign]],
    ];
    for (const [values, clusterIds] of cases) {
      const query = byValues(key, values, clusterIds);
      const { total_count } = await get(CONTAINERS, query, { size: 5, index: 0 });
      assert.equal(total_count, await countedValues(key, values, clusterIds), query);
    }
  }
  // A page past the middle is read from the end.
  const [deployment] = await commonValues('owner_kind');
  const query = byValues('owner_kind', [deployment]);
  const all = await readForwards(CONTAINERS, query);
  assert.equal(all.length, await countedValues('owner_kind', [deployment]));
  const last = Math.ceil(all.length / 3) - 1;
  const { entries } = await get(CONTAINERS, query, { size: 3, index: last });
  assert.deepEqual(
    entries.map((entry) => entry.id),
    all.slice(last * 3),
    'the last page, read from the end',
  );
});

test('the values kept answer one key and clusters alone, and no other filter', async () => {
  const [image] = await commonValues('image_repo');
  const skewValue = (delta: number) =>
    withSystemScope(() =>
      t.db.query(
        `update container_value_totals set total = total + $4
          where account_id = $1 and cluster_id = $2 and key = 'image_repo' and value = $3`,
        [tenant.accountId, clusters.a, image, delta],
      ),
    );
  const truth = await countedValues('image_repo', [image]);
  await skewValue(1000);
  try {
    const totalOf = async (query: string) =>
      (await get(CONTAINERS, query, { size: 1, index: 0 })).total_count;
    assert.equal(await totalOf(byValues('image_repo', [image])), truth + 1000);
    assert.equal(
      await totalOf(byValues('image_repo', [image], [clusters.a])),
      (await countedValues('image_repo', [image], [clusters.a])) + 1000,
    );
    assert.equal(
      await totalOf(byValues('image_repo', [image], [clusters.b])),
      await countedValues('image_repo', [image], [clusters.b]),
    );
    const [name] = await commonValues('name');
    assert.equal(
      await totalOf(filters([], `image_repo:${image}`, `name:${name}`)),
      await countedValues('image_repo', [image], undefined, `name = '${name}'`),
      'a second kept key is counted',
    );
    const [pod] = await commonValues('pod_name');
    assert.equal(
      await totalOf(filters([], `image_repo:${image}`, `pod_name:${pod}`)),
      await countedValues('image_repo', [image], undefined, `pod_name = '${pod}'`),
      'a key that is not kept is counted',
    );
    const searched = `${byValues('image_repo', [image])}&q=${encodeURIComponent(name)}`;
    assert.equal(
      await totalOf(searched),
      (await readForwards(CONTAINERS, searched)).length,
      'a search beside the key is counted',
    );
  } finally {
    await skewValue(-1000);
  }
});

test("migrations 0064 and 0065 count the rows stored before them, each tenant's own", async () => {
  // Every kept row recounted from the stored rows, in a transaction that is rolled back.
  const migrations = [
    {
      table: 'live_resource_kind_totals',
      columns: 'cluster_id, kind',
      recount: KIND_TOTALS_OF_STORED_VERSIONS,
    },
    {
      table: 'container_value_totals',
      columns: 'cluster_id, key, value',
      recount: VALUE_TOTALS_OF_STORED_CONTAINERS,
    },
  ];
  for (const { table, columns, recount } of migrations) {
    const keptRows = `select concat_ws(' ', account_id, ${columns}, total) as row from ${table}
                       where total <> 0 order by 1`;
    const kept = await t.db.query<{ row: string }>(keptRows);
    await t.db
      .transaction(async (tx) => {
        await tx.query(`delete from ${table}`);
        await tx.query(recount);
        const recounted = await tx.query<{ row: string }>(keptRows);
        assert.deepEqual(recounted.rows, kept.rows, table);
        const accounts = new Set(recounted.rows.map((row) => row.row.split(' ')[0]));
        assert.ok(accounts.has(tenant.accountId) && accounts.has(other.accountId), table);
        throw new Error('rolled back');
      })
      .catch((error: Error) => assert.equal(error.message, 'rolled back'));
  }
});
