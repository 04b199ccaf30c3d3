/**
 * The unfiltered lists' totals are kept at ingestion (migration 0022, docs/performance.md "Fix 12";
 * the runtime lists per cluster, migration 0028, "Fix 16d"; the packages of each severity, migration
 * 0048, "Fix 26"; the live resources per cluster and kind, migration 0064, "Fix 76"; the containers
 * per cluster and value of each kept filter key, migration 0065, "Fix 77"): after any
 * sequence of pushes (watch events, snapshots that delete and restore, scans that add and drop
 * packages, runtime pushes that add HTTP observations, close learning windows and raise insights)
 * and removals of a cluster's inventory or runtime rows, each kept total equals count(*) of its
 * list's predicate, cluster by cluster, and the lists' total_count is that number. A statement of any kind written outside the
 * ingestion (by hand, over several accounts, TRUNCATE) keeps them too: the triggers cannot be
 * bypassed by a new write path.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Executor } from '../../src/db/database.js';
import { SEVERITIES } from '../../src/ingest/vulnerabilities/severity.js';
import { KEPT_CONTAINER_KEYS } from '../../src/modules/list-totals/repository.js';
import { exec, httpRequest, pushOk as pushRuntimeOk, putSettings, WEB } from '../runtime/support.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import { type ScanDoc, scanDoc } from '../vulnerabilities/support.js';
import { createCluster, type KubeJson, list, push, sampleItems } from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** Each kept list, its route and the predicate of its unfiltered request. */
const LISTS = [
  {
    list: 'inventory_containers',
    url: 'inventory_containers',
    from: 'inventory_containers where account_id = $1',
  },
  {
    list: 'cluster_resources_live',
    url: 'resources',
    from: 'cluster_resources where account_id = $1 and is_latest and deleted_at is null',
  },
  {
    list: 'vulnerability_packages',
    url: 'inventory_packages',
    from: 'vulnerability_packages where account_id = $1',
  },
  // Migration 0048: the packages list filtered by one severity.
  ...SEVERITIES.map((severity) => ({
    list: `vulnerability_packages_${severity}`,
    url: `inventory_packages?filters=severity:${severity}`,
    from: `vulnerability_packages where account_id = $1 and ${severity}_count > 0`,
  })),
  { list: 'identities', url: 'identities', from: 'identities where account_id = $1' },
  {
    list: 'runtime_http_observations',
    url: 'container_runtime_insights/http_requests',
    from: 'runtime_http_observations where account_id = $1',
  },
  {
    list: 'runtime_baselines',
    url: 'container_runtime_latest_baseline_fingerprints',
    from: 'runtime_baselines where account_id = $1',
  },
  {
    list: 'runtime_insights',
    url: 'container_runtime_insights',
    from: 'runtime_insights where account_id = $1',
  },
];

/** The tables whose runtime rows a removal of a cluster's runtime data deletes. */
const RUNTIME_TABLES = ['runtime_http_observations', 'runtime_baselines', 'runtime_insights'] as const;

/** Per list, its kept total: the packages' account row, the other lists' sum over clusters. */
async function keptTotals(db: Executor, accountId: string) {
  const { rows } = await db.query<{ list: string; total: number }>(
    `select list, total from list_totals where account_id = $1
     union all
     select list, sum(total) from cluster_list_totals where account_id = $1 group by list
     union all
     select list, sum(total) from runtime_list_totals where account_id = $1 group by list`,
    [accountId],
  );
  return new Map(rows.map((row) => [row.list, Number(row.total)]));
}

async function counted(db: Executor, accountId: string) {
  const counts = new Map<string, number>();
  for (const { list, from } of LISTS) {
    const { rows } = await db.query<{ n: number }>(`select count(*) as n from ${from}`, [accountId]);
    counts.set(list, Number(rows[0]?.n ?? 0));
  }
  return counts;
}

/**
 * The rows kept per cluster (the lists a cluster's pushes write), per cluster and kind (the live
 * resources, migration 0064) and per cluster, key and value (the containers, 0065), which the
 * lists filtered by clusters, kinds or a container's key alone read: each as `<list> <cluster>
 * <total>`, `live kind <cluster> <kind> <total>` or `container <key> <value> <cluster> <total>`,
 * those of 0 left out, sorted.
 */
async function keptPerCluster(db: Executor, accountId: string): Promise<string[]> {
  const { rows } = await db.query<{ row: string }>(
    `select concat_ws(' ', list, cluster_id, total) as row from cluster_list_totals where account_id = $1 and total <> 0
     union all
     select concat_ws(' ', list, cluster_id, total) from runtime_list_totals where account_id = $1 and total <> 0
     union all
     select concat_ws(' ', 'live kind', cluster_id, kind, total) from live_resource_kind_totals
      where account_id = $1 and total <> 0
     union all
     select concat_ws(' ', 'container', key, value, cluster_id, total) from container_value_totals
      where account_id = $1 and total <> 0`,
    [accountId],
  );
  return rows.map((row) => row.row).sort();
}

/**
 * Each container's (key, value) pairs for the keys the list reads kept totals of: counted from
 * those, the rows must be exactly those the migration's triggers keep, so the two lists of keys
 * cannot part.
 */
const CONTAINER_VALUES = `cross join lateral (values ${[...KEPT_CONTAINER_KEYS]
  .map((key) => `('${key}', c.${key})`)
  .join(', ')}) v(key, value)`;

/**
 * keptPerCluster's rows as a count of each list's rows by cluster, of the live resources by kind,
 * and of the containers by each kept key's value.
 */
async function countedPerCluster(db: Executor, accountId: string): Promise<string[]> {
  const perCluster = LISTS.filter(({ list }) => !list.startsWith('vulnerability_packages')).map(
    ({ list, from }) =>
      `select concat_ws(' ', '${list}', cluster_id, count(*)) as row from ${from} group by cluster_id`,
  );
  const { rows } = await db.query<{ row: string }>(
    `${perCluster.join(' union all ')}
     union all
     select concat_ws(' ', 'live kind', cluster_id, kind, count(*)) from cluster_resources
      where account_id = $1 and is_latest and deleted_at is null group by cluster_id, kind
     union all
     select concat_ws(' ', 'container', v.key, v.value, c.cluster_id, count(*))
       from inventory_containers c ${CONTAINER_VALUES}
      where c.account_id = $1 group by v.key, v.value, c.cluster_id`,
    [accountId],
  );
  return rows.map((row) => row.row).sort();
}

/** The kept totals (a missing row is 0) against a full count, list by list, cluster by cluster. */
async function assertKept(db: Executor, accountId: string, context: string) {
  const kept = await keptTotals(db, accountId);
  for (const [list, n] of await counted(db, accountId)) {
    assert.equal(kept.get(list) ?? 0, n, `${list} ${context}`);
  }
  assert.deepEqual(await keptPerCluster(db, accountId), await countedPerCluster(db, accountId), context);
}

/** What the unfiltered lists answer, through the real endpoints. */
async function assertListed(tenant: TestTenant, context: string) {
  const counts = await counted(t.db, tenant.accountId);
  for (const { list, url } of LISTS) {
    const res = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/${url}`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total_count, counts.get(list), `${url} total_count ${context}`);
  }
}

// Object slots of a small cluster: pods (containers), service accounts (identities), workloads.
const SLOTS: KubeJson[] = [
  ...sampleItems('03-pods.json').slice(0, 8),
  ...sampleItems('04-rbac.json')
    .filter((item) => item.kind === 'ServiceAccount')
    .slice(0, 4),
  ...sampleItems('02-workloads.json').slice(0, 4),
];

type Op =
  | { op: 'watch'; cluster: number; events: { slot: number; remove: boolean }[] }
  | { op: 'snapshot'; cluster: number; slots: number[]; bump: number[] }
  | { op: 'scan'; cluster: number; components: number }
  | { op: 'purge'; cluster: number }
  | { op: 'runtime'; cluster: number; workloads: number[]; paths: number[]; drift: boolean }
  | { op: 'forget'; cluster: number };

const slot = fc.nat({ max: SLOTS.length - 1 });
const cluster = fc.nat({ max: 1 });
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('watch' as const),
      cluster,
      events: fc.array(fc.record({ slot, remove: fc.boolean() }), { minLength: 1, maxLength: 6 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('snapshot' as const),
      cluster,
      slots: fc.uniqueArray(slot, { maxLength: SLOTS.length }),
      bump: fc.uniqueArray(slot, { maxLength: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('scan' as const), cluster, components: fc.nat({ max: 21 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('purge' as const), cluster }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('runtime' as const),
      cluster,
      workloads: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 4 }),
      paths: fc.uniqueArray(fc.nat({ max: 5 }), { maxLength: 3 }),
      drift: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forget' as const), cluster }) },
);

/** The seconds of a learning window in these tests: an event a window later closes it. */
const WINDOW_SECONDS = 60;

/**
 * A runtime push from `start` (seconds): each workload runs its server and serves some paths
 * (HTTP observations); with drift, it runs a binary it never ran before two windows later, which
 * closes its learning window (a baseline) and raises an insight.
 */
function runtimeEvents(start: number, push: { workloads: number[]; paths: number[]; drift: boolean }) {
  return push.workloads.flatMap((w) => {
    const workload = {
      ...WEB,
      workload: `svc-${w}`,
      pod: `svc-${w}-5d4f8b7c9-q2w3${w}`,
      containerId: `containerd://${String(w).repeat(64)}`,
    };
    return [
      exec(workload, start + w, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      ...push.paths.map((p) => httpRequest(workload, start + w + 1, { path: `/api/v${p}/orders` })),
      ...(push.drift
        ? [
            exec(workload, start + 2 * WINDOW_SECONDS, {
              pid: 9,
              ppid: 1,
              comm: 'curl',
              exe: `/tmp/curl-${start}`,
            }),
          ]
        : []),
    ];
  });
}

const POSTGRES_SCAN: ScanDoc = scanDoc('postgres-16.4.cdx.json');

/** The scan of one image with only its first `n` components: a rescan adds and drops packages. */
function scanWith(n: number): ScanDoc {
  const doc = structuredClone(POSTGRES_SCAN);
  doc.components = doc.components.slice(0, n);
  return doc;
}

/**
 * Per cluster: the last resourceVersion sent of each slot (a newer one makes a new version). The
 * runtime clock moves on by more than a learning window at each runtime push.
 */
interface Model {
  clusters: { id: string; versions: Map<number, number> }[];
  version: number;
  seconds: number;
}

function objectAt(model: Model, clusterIndex: number, index: number, bump: boolean): KubeJson {
  const versions = model.clusters[clusterIndex]!.versions;
  if (bump || !versions.has(index)) versions.set(index, ++model.version);
  const object = structuredClone(SLOTS[index]);
  object.metadata.resourceVersion = String(versions.get(index));
  return object;
}

/** What the pushes of all runs reported, so the test knows it reached deletes and restores. */
const seen = { deleted: 0, restored: 0, forgotten: 0, insights: 0 };

async function apply(tenant: TestTenant, model: Model, op: Op) {
  const clusterId = model.clusters[op.cluster]!.id;
  const pushOk = async (payload: string | object, query = '', headers: Record<string, string> = {}) => {
    const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, payload, { query, headers });
    assert.equal(res.status, 200, res.text);
    seen.deleted += res.body.deleted;
    seen.restored += res.body.restored;
  };
  if (op.op === 'watch') {
    const lines = op.events.map(({ slot: index, remove }) =>
      JSON.stringify({
        type: remove ? 'DELETED' : 'MODIFIED',
        object: objectAt(model, op.cluster, index, true),
      }),
    );
    await pushOk(lines.join('\n'), '', { 'content-type': 'application/x-ndjson' });
  } else if (op.op === 'snapshot') {
    // Unbumped slots keep their version: one a previous snapshot marked deleted is restored.
    const objects = op.slots.map((index) => objectAt(model, op.cluster, index, op.bump.includes(index)));
    await pushOk(list(objects), '?mode=snapshot');
  } else if (op.op === 'scan') {
    const res = await t.request({
      method: 'POST',
      url: `/accounts/${tenant.accountId}/clusters/${clusterId}/ingest/vulnerabilities`,
      token: tenant.adminToken,
      payload: JSON.stringify(scanWith(op.components)),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200, res.text);
  } else if (op.op === 'runtime') {
    model.seconds += 10 * WINDOW_SECONDS;
    const start = model.seconds;
    await pushRuntimeOk(
      t,
      { token: tenant.adminToken, accountId: tenant.accountId, clusterId },
      runtimeEvents(start, op),
    );
  } else if (op.op === 'forget') {
    // What a retention job or a cluster deletion would do to the runtime lists one day.
    await t.db.transaction(async (tx) => {
      for (const table of RUNTIME_TABLES) {
        const { rowCount } = await tx.query(
          `delete from ${table} where account_id = $1 and cluster_id = $2`,
          [tenant.accountId, clusterId],
        );
        seen.forgotten += rowCount;
      }
    });
  } else {
    // What removing a cluster's objects does to the lists, whichever path does it one day.
    await t.db.transaction(async (tx) => {
      for (const table of ['inventory_containers', 'cluster_resource_images', 'cluster_resources']) {
        await tx.query(`delete from ${table} where account_id = $1 and cluster_id = $2`, [
          tenant.accountId,
          clusterId,
        ]);
      }
    });
    model.clusters[op.cluster]!.versions.clear();
  }
}

test('after every step of a random sequence, the kept totals equal a full count', async () => {
  const tenant = await createTenant(t);
  // A neighbour account whose totals nothing of the sequence may move.
  const neighbour = await tenant.addAccount();
  for (const accountId of [tenant.accountId, neighbour]) {
    await putSettings(
      t,
      { token: tenant.adminToken, accountId },
      { learning_window_seconds: WINDOW_SECONDS },
    );
  }
  const other = await createCluster(t, tenant.adminToken, neighbour, 'neighbour');
  const seeded = await push(t, tenant.adminToken, neighbour, other.id, list(SLOTS));
  assert.equal(seeded.status, 200, seeded.text);
  await pushRuntimeOk(
    t,
    { token: tenant.adminToken, accountId: neighbour, clusterId: other.id },
    runtimeEvents(0, { workloads: [0, 1], paths: [0, 1], drift: true }),
  );
  const neighbourTotals = await keptTotals(t.db, neighbour);
  for (const list of ['inventory_containers', ...RUNTIME_TABLES]) {
    assert.ok((neighbourTotals.get(list) ?? 0) > 0, `the neighbour has ${list}`);
  }

  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 8 }), async (ops) => {
      const run = ++runs;
      const model: Model = { clusters: [], version: 900_000 * run, seconds: 0 };
      for (const name of ['a', 'b']) {
        const created = await createCluster(t, tenant.adminToken, tenant.accountId, `totals-${run}-${name}`);
        model.clusters.push({ id: created.id, versions: new Map() });
      }
      for (const [i, op] of ops.entries()) {
        await apply(tenant, model, op);
        await assertKept(t.db, tenant.accountId, `after step ${i} ${JSON.stringify(op)}`);
        const insights = (await keptTotals(t.db, tenant.accountId)).get('runtime_insights') ?? 0;
        seen.insights = Math.max(seen.insights, insights);
      }
      await assertListed(tenant, `after ${JSON.stringify(ops)}`);
    }),
    {
      seed: 20261123,
      numRuns: 6,
      endOnFailure: true,
      examples: [
        // Snapshot deletes, a snapshot restores the same version, a watch deletes, the cluster goes.
        [
          [
            { op: 'snapshot', cluster: 0, slots: [0, 1, 2, 8, 12], bump: [] },
            { op: 'snapshot', cluster: 0, slots: [0, 8], bump: [] },
            { op: 'snapshot', cluster: 0, slots: [0, 1, 2, 8, 12], bump: [] },
            {
              op: 'watch',
              cluster: 0,
              events: [
                { slot: 1, remove: true },
                { slot: 3, remove: false },
              ],
            },
            { op: 'scan', cluster: 1, components: 21 },
            { op: 'scan', cluster: 1, components: 3 },
            { op: 'purge', cluster: 0 },
          ],
        ],
        // Runtime rows on both clusters, a push that only merges known paths, a cluster's rows
        // removed, then pushed again.
        [
          [
            { op: 'runtime', cluster: 0, workloads: [0, 1], paths: [0, 1], drift: true },
            { op: 'runtime', cluster: 1, workloads: [2], paths: [2], drift: true },
            { op: 'runtime', cluster: 0, workloads: [0, 1], paths: [0, 1], drift: false },
            { op: 'forget', cluster: 0 },
            { op: 'runtime', cluster: 0, workloads: [3], paths: [3], drift: true },
          ],
        ],
      ],
    },
  );
  assert.ok(seen.deleted > 0 && seen.restored > 0, `deleted ${seen.deleted}, restored ${seen.restored}`);
  assert.ok(
    seen.insights > 0 && seen.forgotten > 0,
    `insights ${seen.insights}, forgotten ${seen.forgotten}`,
  );
  assert.deepEqual(await keptTotals(t.db, neighbour), neighbourTotals, 'the neighbour account did not move');
  await assertKept(t.db, neighbour, 'of the neighbour');
});

/** Every column but the generated search texts (migrations 0029 and 0042), which no insert may name. */
async function writableColumns(table: string): Promise<string> {
  const { rows } = await t.db.query<{ columns: string }>(
    `select string_agg(column_name, ', ' order by ordinal_position) as columns from information_schema.columns
      where table_schema = 'public' and table_name = $1 and is_generated = 'NEVER'`,
    [table],
  );
  return rows[0]!.columns;
}

test('statements written by hand keep the totals: insert, update, delete, several accounts, truncate', async () => {
  const tenant = await createTenant(t);
  const second = await tenant.addAccount();
  const accounts = [tenant.accountId, second];
  for (const accountId of accounts) {
    const created = await createCluster(t, tenant.adminToken, accountId, 'by-hand');
    const res = await push(t, tenant.adminToken, accountId, created.id, list(SLOTS));
    assert.equal(res.status, 200, res.text);
    await putSettings(
      t,
      { token: tenant.adminToken, accountId },
      { learning_window_seconds: WINDOW_SECONDS },
    );
    await pushRuntimeOk(
      t,
      { token: tenant.adminToken, accountId, clusterId: created.id },
      runtimeEvents(0, { workloads: [0, 1, 2], paths: [0, 1, 2], drift: true }),
    );
    const scanned = await t.request({
      method: 'POST',
      url: `/accounts/${accountId}/clusters/${created.id}/ingest/vulnerabilities`,
      token: tenant.adminToken,
      payload: JSON.stringify(POSTGRES_SCAN),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(scanned.status, 200, scanned.text);
  }
  const check = async (context: string) => {
    for (const accountId of accounts) await assertKept(t.db, accountId, context);
  };
  await check('after the pushes');
  const kept = await keptTotals(t.db, tenant.accountId);
  assert.ok((kept.get('cluster_resources_live') ?? 0) > 0 && (kept.get('identities') ?? 0) > 0);
  assert.ok((kept.get('runtime_baselines') ?? 0) > 0 && (kept.get('runtime_insights') ?? 0) > 0);
  for (const severity of ['critical', 'high', 'medium', 'low']) {
    assert.ok((kept.get(`vulnerability_packages_${severity}`) ?? 0) > 0, `packages with ${severity}`);
  }

  // Package counts moving a row out of one severity's list and into another's, over both accounts,
  // by an update and by an insert whose conflicts update.
  await t.db.query(
    `update vulnerability_packages set critical_count = 0, high_count = high_count + 1
      where account_id = any($1::uuid[]) and critical_count > 0 and name < 'm'`,
    [accounts],
  );
  await check('after moving packages from critical to high');
  await t.db.query(
    `update vulnerability_packages set negligible_count = 2 where account_id = $1 and low_count > 0`,
    [tenant.accountId],
  );
  await check('after giving packages a negligible count');
  const packageColumns = await writableColumns('vulnerability_packages');
  await t.db.query(
    `insert into vulnerability_packages as p (${packageColumns})
     select ${packageColumns} from vulnerability_packages where account_id = any($1::uuid[])
     on conflict (account_id, id) do update set medium_count = 0, unspecified_count = p.medium_count`,
    [accounts],
  );
  await check('after an insert whose every row conflicts and updates');
  await t.db.query(
    `delete from vulnerability_packages where account_id = any($1::uuid[]) and high_count > 0 and name > 'm'`,
    [accounts],
  );
  await check('after deleting packages');

  // One statement over both accounts, then each kind of change of the live predicate.
  await t.db.query(
    `update cluster_resources set deleted_at = now(), deletion_source = 'watch'
      where account_id = any($1::uuid[]) and kind = 'Pod' and is_latest`,
    [accounts],
  );
  await check('after deleting the pods of both accounts');
  await t.db.query(
    `update cluster_resources set deleted_at = null, deletion_source = null
      where account_id = any($1::uuid[]) and kind = 'Pod' and is_latest and name like '%a%'`,
    [accounts],
  );
  await check('after restoring some');
  await t.db.query(
    `update cluster_resources set is_latest = false where account_id = $1 and kind = 'ServiceAccount'`,
    [tenant.accountId],
  );
  await check('after overwriting without a new version');
  await t.db.query('delete from cluster_resources where account_id = any($1::uuid[]) and kind = $2', [
    accounts,
    'Deployment',
  ]);
  await t.db.query('delete from inventory_containers where account_id = any($1::uuid[]) and name < $2', [
    accounts,
    'n',
  ]);
  await t.db.query(
    `delete from identities where account_id = $1
        and id in (select id from identities where account_id = $1 order by id limit 2)`,
    [tenant.accountId],
  );
  await t.db.query(
    `delete from runtime_http_observations where account_id = any($1::uuid[]) and path like '/api/v1/%'`,
    [accounts],
  );
  await t.db.query(
    `delete from runtime_baselines where account_id = any($1::uuid[]) and workload_name = 'svc-0'`,
    [accounts],
  );
  await t.db.query(
    `delete from runtime_insights where account_id = $1
        and id in (select id from runtime_insights where account_id = $1 order by id limit 1)`,
    [tenant.accountId],
  );
  await check('after deleting rows by hand');
  // Containers rewritten in place over both accounts: kept values moved, and values left as they were.
  await t.db.query(
    `update inventory_containers set owner_kind = 'DaemonSet', image_repo = image_repo || '-mirror'
      where account_id = any($1::uuid[]) and pod_name > 'm'`,
    [accounts],
  );
  await t.db.query(`update inventory_containers set values_digest = 'x' where account_id = any($1::uuid[])`, [
    accounts,
  ]);
  await check('after updating containers by hand');
  const containerColumns = await writableColumns('inventory_containers');
  await t.db.query(
    `insert into inventory_containers (${containerColumns})
     select ${containerColumns} from inventory_containers where account_id = $1
     on conflict do nothing`,
    [tenant.accountId],
  );
  await t.db.query(
    `insert into runtime_insights
     select * from runtime_insights where account_id = $1
     on conflict do nothing`,
    [tenant.accountId],
  );
  await check('after inserts that conflict on every row');

  // TRUNCATE forgets the totals with the rows (a scratch transaction, never committed).
  await t.db
    .transaction(async (tx) => {
      await tx.query(
        'truncate vulnerability_packages, inventory_containers, runtime_insights, cluster_resources cascade',
      );
      const after = await keptTotals(tx, tenant.accountId);
      assert.equal(after.get('cluster_resources_live') ?? 0, 0);
      assert.deepEqual(
        (await keptPerCluster(tx, tenant.accountId)).filter(
          (row) => row.startsWith('live kind') || row.startsWith('container '),
        ),
        [],
      );
      assert.equal(after.get('inventory_containers') ?? 0, 0);
      assert.equal(after.get('vulnerability_packages') ?? 0, 0);
      for (const severity of SEVERITIES)
        assert.equal(after.get(`vulnerability_packages_${severity}`) ?? 0, 0);
      assert.equal(after.get('runtime_insights') ?? 0, 0);
      throw new Error('rolled back');
    })
    .catch((error: Error) => assert.equal(error.message, 'rolled back'));
  await check('after the truncate was rolled back');
});

test('every kept table has its counting triggers', async () => {
  // A dropped or disabled trigger would let a write path past the totals; the sequences above
  // would catch it too, but only for the paths they take.
  const { rows } = await t.db.query<{ table: string; events: string }>(
    `select c.relname as table,
            string_agg(case when tg.tgtype & 4 <> 0 then 'insert'
                            when tg.tgtype & 8 <> 0 then 'delete'
                            when tg.tgtype & 16 <> 0 then 'update'
                            else 'truncate' end, ',' order by 1) as events
       from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
      where (tg.tgname like 'list_totals_%' or tg.tgname like 'runtime_list_totals_%')
        and tg.tgenabled <> 'D'
      group by c.relname order by c.relname`,
  );
  assert.deepEqual(
    rows.map((row) => [row.table, row.events.split(',').sort().join(',')]),
    [
      // 0050's totals, and 0064's kinds forgotten on TRUNCATE
      ['cluster_resources', 'delete,insert,truncate,truncate,update'],
      ['identities', 'delete,insert,truncate'],
      // 0050's totals, and 0065's values
      ['inventory_containers', 'delete,delete,insert,insert,truncate,truncate,update'],
      ['runtime_baselines', 'delete,insert,truncate'],
      ['runtime_http_observations', 'delete,insert,truncate'],
      ['runtime_insights', 'delete,insert,truncate'],
      // 0022's totals and 0048's severities
      ['vulnerability_packages', 'delete,delete,insert,insert,truncate,truncate,update'],
    ],
  );
});
