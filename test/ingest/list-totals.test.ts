/**
 * The unfiltered lists' totals are kept at ingestion (migration 0022, docs/performance.md "Fix 12"):
 * after any sequence of pushes (watch events, snapshots that delete and restore, scans that add and
 * drop packages) and cluster removals, each kept total equals count(*) of its list's predicate, and
 * the lists' unfiltered total_count is that number. A statement of any kind written outside the
 * ingestion (by hand, over several accounts, TRUNCATE) keeps them too: the triggers cannot be
 * bypassed by a new write path.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Executor } from '../../src/db/database.js';
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
  { list: 'identities', url: 'identities', from: 'identities where account_id = $1' },
] as const;

async function keptTotals(db: Executor, accountId: string) {
  const { rows } = await db.query<{ list: string; total: number }>(
    'select list, total from list_totals where account_id = $1',
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

/** The kept totals (a missing row is 0) against a full count, list by list. */
async function assertKept(db: Executor, accountId: string, context: string) {
  const kept = await keptTotals(db, accountId);
  for (const [list, n] of await counted(db, accountId)) {
    assert.equal(kept.get(list) ?? 0, n, `${list} ${context}`);
  }
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
  | { op: 'purge'; cluster: number };

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
);

const POSTGRES_SCAN: ScanDoc = scanDoc('postgres-16.4.cdx.json');

/** The scan of one image with only its first `n` components: a rescan adds and drops packages. */
function scanWith(n: number): ScanDoc {
  const doc = structuredClone(POSTGRES_SCAN);
  doc.components = doc.components.slice(0, n);
  return doc;
}

/** Per cluster: the last resourceVersion sent of each slot (a newer one makes a new version). */
interface Model {
  clusters: { id: string; versions: Map<number, number> }[];
  version: number;
}

function objectAt(model: Model, clusterIndex: number, index: number, bump: boolean): KubeJson {
  const versions = model.clusters[clusterIndex]!.versions;
  if (bump || !versions.has(index)) versions.set(index, ++model.version);
  const object = structuredClone(SLOTS[index]);
  object.metadata.resourceVersion = String(versions.get(index));
  return object;
}

/** What the pushes of all runs reported, so the test knows it reached deletes and restores. */
const seen = { deleted: 0, restored: 0 };

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
  const other = await createCluster(t, tenant.adminToken, neighbour, 'neighbour');
  const seeded = await push(t, tenant.adminToken, neighbour, other.id, list(SLOTS));
  assert.equal(seeded.status, 200, seeded.text);
  const neighbourTotals = await keptTotals(t.db, neighbour);
  assert.ok((neighbourTotals.get('inventory_containers') ?? 0) > 0);

  let runs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 8 }), async (ops) => {
      const run = ++runs;
      const model: Model = { clusters: [], version: 900_000 * run };
      for (const name of ['a', 'b']) {
        const created = await createCluster(t, tenant.adminToken, tenant.accountId, `totals-${run}-${name}`);
        model.clusters.push({ id: created.id, versions: new Map() });
      }
      for (const [i, op] of ops.entries()) {
        await apply(tenant, model, op);
        await assertKept(t.db, tenant.accountId, `after step ${i} ${JSON.stringify(op)}`);
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
      ],
    },
  );
  assert.ok(seen.deleted > 0 && seen.restored > 0, `deleted ${seen.deleted}, restored ${seen.restored}`);
  assert.deepEqual(await keptTotals(t.db, neighbour), neighbourTotals, 'the neighbour account did not move');
  await assertKept(t.db, neighbour, 'of the neighbour');
});

test('statements written by hand keep the totals: insert, update, delete, several accounts, truncate', async () => {
  const tenant = await createTenant(t);
  const second = await tenant.addAccount();
  const accounts = [tenant.accountId, second];
  for (const accountId of accounts) {
    const created = await createCluster(t, tenant.adminToken, accountId, 'by-hand');
    const res = await push(t, tenant.adminToken, accountId, created.id, list(SLOTS));
    assert.equal(res.status, 200, res.text);
  }
  const check = async (context: string) => {
    for (const accountId of accounts) await assertKept(t.db, accountId, context);
  };
  await check('after the pushes');
  const kept = await keptTotals(t.db, tenant.accountId);
  assert.ok((kept.get('cluster_resources_live') ?? 0) > 0 && (kept.get('identities') ?? 0) > 0);

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
  await check('after deleting rows by hand');
  await t.db.query(
    `insert into inventory_containers
     select * from inventory_containers where account_id = $1
     on conflict do nothing`,
    [tenant.accountId],
  );
  await check('after an insert that conflicts on every row');

  // TRUNCATE forgets the totals with the rows (a scratch transaction, never committed).
  await t.db
    .transaction(async (tx) => {
      await tx.query('truncate vulnerability_packages, inventory_containers cascade');
      const after = await keptTotals(tx, tenant.accountId);
      assert.equal(after.get('inventory_containers') ?? 0, 0);
      assert.equal(after.get('vulnerability_packages') ?? 0, 0);
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
      where tg.tgname like 'list_totals_%' and tg.tgenabled <> 'D'
      group by c.relname order by c.relname`,
  );
  assert.deepEqual(
    rows.map((row) => [row.table, row.events.split(',').sort().join(',')]),
    [
      ['cluster_resources', 'delete,insert,truncate,update'],
      ['identities', 'delete,insert,truncate'],
      ['inventory_containers', 'delete,insert,truncate'],
      ['vulnerability_packages', 'delete,insert,truncate'],
    ],
  );
});
