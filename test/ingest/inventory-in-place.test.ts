/**
 * A pod's new version rewrites the inventory rows of the containers it still runs in place
 * (docs/performance.md, "Fix 14"): the same row is updated, never deleted and inserted again, and
 * only when one of its served values changed ("Fix 64"); a container the version no longer runs is
 * deleted, a new one inserted. A row-level trigger, installed by the test only, records every write to
 * inventory_containers, so the test sees which statement touched which row.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  createCluster,
  type KubeJson,
  list,
  push,
  pushSampleCluster,
  rolledOut,
  sampleObject,
} from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
  for (const sql of [
    'create table test_inventory_writes (seq serial, op text, id uuid, pod_resource_id text, image text)',
    'grant insert, select on test_inventory_writes to public',
    'grant usage on sequence test_inventory_writes_seq_seq to public',
    `create function test_log_inventory_write() returns trigger language plpgsql as $$
     begin
       if tg_op = 'DELETE' then
         insert into test_inventory_writes (op, id, pod_resource_id, image)
           values (tg_op, old.id, old.pod_resource_id, old.image);
         return old;
       end if;
       insert into test_inventory_writes (op, id, pod_resource_id, image)
         values (tg_op, new.id, new.pod_resource_id, new.image);
       return new;
     end $$`,
    `create trigger test_log_inventory_write after insert or update or delete on inventory_containers
       for each row execute function test_log_inventory_write()`,
  ])
    await t.db.query(sql);
});
after(() => t.close());

async function writes() {
  const { rows } = await t.db.query<{ op: string; id: string; pod_resource_id: string; image: string }>(
    'select op, id, pod_resource_id, image from test_inventory_writes order by seq',
  );
  await t.db.query('delete from test_inventory_writes');
  return rows.map((row) => `${row.op} ${row.id} ${row.image}`).sort();
}

async function containersOf(tenant: TestTenant, podUid: string) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/inventory_containers?limit=100&sort=name&filters=${encodeURIComponent(`pod_uid:${podUid}`)}`,
    token: tenant.adminToken,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Pushes a pod's version, which must be new. */
async function pushNewVersion(tenant: TestTenant, clusterId: string, pod: KubeJson) {
  const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, list([pod]));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.created, 1, 'a new version of the pod');
}

test("a pod's new version updates the rows of the containers it keeps, only where a served value changed", async () => {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, clusterId);
  await writes();

  const v1: KubeJson = sampleObject('Pod', 'storefront', 'api-h9q9d9jrtg-4hj9v');
  const uid = v1.metadata.uid;
  const first = await containersOf(tenant, uid);
  assert.deepEqual(
    first.entries.map((c: KubeJson) => c.name),
    ['api', 'log-shipper'],
  );
  const idOf = (entries: KubeJson[], name: string) => entries.find((c: KubeJson) => c.name === name).id;
  const api = idOf(first.entries, 'api');
  const shipper = idOf(first.entries, 'log-shipper');
  const pushVersion = (pod: KubeJson) => pushNewVersion(tenant, clusterId, pod);

  // A new version that changes nothing of its containers (a label, the resource version): no row
  // is written, and the API shows the same entries. The rows keep naming the version their
  // values were read from (docs/performance.md, "Fix 64").
  const recordOf = async () => {
    const res = await t.request({
      method: 'GET',
      url: `/clusters/${clusterId}/resources/${uid}/latest?with_payload=false`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    return res.body.id as string;
  };
  const storedRecords = async () => {
    const { rows } = await t.db.query<{ name: string; pod_resource_id: string }>(
      'select name, pod_resource_id from inventory_containers where account_id = $1 and pod_uid = $2 order by name',
      [tenant.accountId, uid],
    );
    return rows.map((row) => `${row.name} ${row.pod_resource_id}`);
  };
  const v1Record = await recordOf();
  const shipperImage = v1.spec.containers[1].image;
  const v2 = structuredClone(v1);
  v2.metadata.resourceVersion = '900001';
  v2.metadata.labels = { ...v2.metadata.labels, rollout: 'two' };
  await pushVersion(v2);
  assert.notEqual(await recordOf(), v1Record, 'a new version was stored');
  assert.deepEqual(await writes(), [], 'no container row is written');
  assert.deepEqual(await storedRecords(), [`api ${v1Record}`, `log-shipper ${v1Record}`]);
  assert.deepEqual(await containersOf(tenant, uid), first);

  // The api container gets a new image, the log shipper is gone, a sidecar appears: one update,
  // one delete, one insert, and the list shows exactly the new containers.
  const v3 = rolledOut(v2, '900002');
  await pushVersion(v3);
  const third = await containersOf(tenant, uid);
  assert.deepEqual(
    third.entries.map((c: KubeJson) => [c.name, c.image_repo, c.image_tag]),
    [
      ['api', 'registry.example.com/storefront/api', '9.9.9'],
      ['proxy', 'docker.io/envoyproxy/envoy', 'v1.30.0'],
    ],
  );
  assert.equal(idOf(third.entries, 'api'), api, 'the kept container keeps its id');
  const v3Record = await recordOf();
  assert.deepEqual(
    await storedRecords(),
    [`api ${v3Record}`, `proxy ${v3Record}`],
    'a row written again names the version it was read from',
  );
  const proxy = idOf(third.entries, 'proxy');
  assert.deepEqual(
    await writes(),
    [
      `UPDATE ${api} registry.example.com/storefront/api:9.9.9`,
      `DELETE ${shipper} ${shipperImage}`,
      `INSERT ${proxy} docker.io/envoyproxy/envoy:v1.30.0`,
    ].sort(),
  );
  const { rows: totals } = await t.db.query<{ total: number }>(
    `select sum(total) as total from cluster_list_totals where account_id = $1 and list = 'inventory_containers'`,
    [tenant.accountId],
  );
  const { rows: counted } = await t.db.query<{ n: number }>(
    'select count(*)::int as n from inventory_containers where account_id = $1',
    [tenant.accountId],
  );
  assert.equal(Number(totals[0]?.total), counted[0]?.n, 'the kept total still counts the rows');

  // Re-pushing the same version is no new version: nothing is written.
  const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, list([v3]));
  assert.equal(res.body.unchanged, 1);
  assert.deepEqual(await writes(), []);

  // A row whose values another writer changed without naming a digest (an operator's statement,
  // a server of the previous build: migration 0062's trigger) is rewritten at the pod's next
  // version, though the pod's containers did not change.
  await t.db.query(`update inventory_containers set image_tag = 'edited' where account_id = $1 and id = $2`, [
    tenant.accountId,
    api,
  ]);
  await writes();
  const v4 = structuredClone(v3);
  v4.metadata.resourceVersion = '900003';
  await pushVersion(v4);
  assert.deepEqual(await writes(), [`UPDATE ${api} registry.example.com/storefront/api:9.9.9`]);
  assert.deepEqual(await containersOf(tenant, uid), third, 'the edit is undone');

  // Rows stored before their digests were (null): written once, then left alone.
  await t.db.query(
    'update inventory_containers set values_digest = null where account_id = $1 and pod_uid = $2',
    [tenant.accountId, uid],
  );
  await writes();
  for (const [version, expected] of [
    [
      '900004',
      [
        `UPDATE ${api} registry.example.com/storefront/api:9.9.9`,
        `UPDATE ${proxy} docker.io/envoyproxy/envoy:v1.30.0`,
      ].sort(),
    ],
    ['900005', []],
  ] as const) {
    const next = structuredClone(v4);
    next.metadata.resourceVersion = version;
    await pushVersion(next);
    assert.deepEqual(await writes(), expected, `version ${version}`);
  }
  assert.deepEqual(await containersOf(tenant, uid), third);
});

test("a bare pod's new version rewrites its rows: they name the pod's own version as their owner", async () => {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  const v1: KubeJson = sampleObject('Pod', 'storefront', 'api-h9q9d9jrtg-4hj9v');
  v1.metadata.name = 'bare-api';
  v1.metadata.uid = 'a1b2c3d4-0000-4000-8000-00000000bare';
  delete v1.metadata.ownerReferences;
  const pushVersion = (pod: KubeJson) => pushNewVersion(tenant, clusterId, pod);
  const owners = async () => {
    const res = await containersOf(tenant, v1.metadata.uid);
    return res.entries.map((c: KubeJson) => [c.name, c.owner_kind, c.owner_resource_version]);
  };
  await pushVersion(v1);
  await writes();
  assert.deepEqual(await owners(), [
    ['api', 'Pod', v1.metadata.resourceVersion],
    ['log-shipper', 'Pod', v1.metadata.resourceVersion],
  ]);

  const v2 = structuredClone(v1);
  v2.metadata.resourceVersion = '900101';
  await pushVersion(v2);
  assert.equal((await writes()).filter((write) => write.startsWith('UPDATE')).length, 2);
  assert.deepEqual(await owners(), [
    ['api', 'Pod', '900101'],
    ['log-shipper', 'Pod', '900101'],
  ]);
});
