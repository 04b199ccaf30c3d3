/**
 * Kubernetes ingestion semantics over HTTP: versions, watch events, snapshot mode, derived
 * inventory and isolation. Body formats, errors and idempotency: kubernetes-ingest-body.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../support/harness.js';
import {
  createCluster,
  type KubeJson,
  list,
  push,
  pushSampleCluster,
  SAMPLE_FILES,
  sampleItems,
  sampleObject,
  sampleText,
} from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function get(tenant: TestTenant, url: string) {
  const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const resources = (tenant: TestTenant, query = '') =>
  get(tenant, `/accounts/${tenant.accountId}/resources?page_size=1000${query}`);
const containers = (tenant: TestTenant, filters = '') =>
  get(
    tenant,
    `/accounts/${tenant.accountId}/inventory_containers?limit=1000&filters=${encodeURIComponent(filters)}`,
  );
const latest = (tenant: TestTenant, clusterId: string, uid: string) =>
  get(tenant, `/clusters/${clusterId}/resources/${uid}/latest?with_payload=false`);

const SAMPLE_COUNT = SAMPLE_FILES.slice(0, 4).reduce(
  (sum, file) => sum + sampleItems(file as '01-cluster.json').length,
  0,
);

describe('pushing the sample cluster', () => {
  let tenant: TestTenant;
  let clusterId: string;
  before(async () => {
    tenant = await createTenant(t);
    clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  });

  test('every object becomes a live record; an identical re-push changes nothing', async () => {
    let created = 0;
    for (const file of SAMPLE_FILES.slice(0, 4)) {
      const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, sampleText(file));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.format, 'list');
      assert.equal(res.body.received, sampleItems(file as '01-cluster.json').length);
      assert.equal(res.body.unchanged, 0);
      created += res.body.created;
    }
    assert.equal(created, SAMPLE_COUNT);
    const before = await resources(tenant);
    assert.equal(before.total_count, SAMPLE_COUNT);

    const again = await push(t, tenant.adminToken, tenant.accountId, clusterId, sampleText('03-pods.json'));
    assert.deepEqual(
      [again.body.created, again.body.unchanged, again.body.deleted, again.body.restored],
      [0, 26, 0, 0],
    );
    assert.deepEqual(await resources(tenant), before);
    const cluster = await get(tenant, `/accounts/${tenant.accountId}/clusters/${clusterId}`);
    assert.ok(cluster.last_ingested_at);
  });

  test('watch events: a new version replaces the latest, DELETED removes the pod and its containers', async () => {
    const events = sampleText('05-watch-events.ndjson')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const deletedPod = events.find((e: KubeJson) => e.type === 'DELETED').object;
    const restarted = events.findLast((e: KubeJson) => e.type === 'MODIFIED').object;
    const previous = sampleObject('Pod', 'payments', restarted.metadata.name);
    assert.equal((await containers(tenant, `pod_uid:${deletedPod.metadata.uid}`)).total_count, 1);

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
    assert.deepEqual(
      [res.body.format, res.body.received, res.body.created, res.body.deleted, res.body.ignored],
      ['stream', 5, 4, 1, 1],
    );

    const gone = await latest(tenant, clusterId, deletedPod.metadata.uid);
    assert.equal(gone.resource_version, deletedPod.metadata.resourceVersion);
    assert.equal(gone.deletion_source, 'watch');
    assert.ok(gone.deleted_at);
    assert.equal((await containers(tenant, `pod_uid:${deletedPod.metadata.uid}`)).total_count, 0);
    const live = await resources(tenant, '&resource_types=Pod');
    assert.ok(!live.entries.some((r: KubeJson) => r.uid === deletedPod.metadata.uid));

    const history = await resources(
      tenant,
      `&include_history=true&owner_uid=${restarted.metadata.ownerReferences[0].uid}`,
    );
    const versions = history.entries.filter((r: KubeJson) => r.uid === restarted.metadata.uid);
    assert.equal(versions.length, 2);
    const old = versions.find((r: KubeJson) => r.resource_version === previous.metadata.resourceVersion);
    assert.ok(old.version_overwritten_at, 'the older version is marked overwritten');
    assert.equal(
      (await latest(tenant, clusterId, restarted.metadata.uid)).resource_version,
      restarted.metadata.resourceVersion,
    );
    const restartedContainers = await containers(tenant, `pod_uid:${restarted.metadata.uid}`);
    assert.equal(
      restartedContainers.entries[0].container_id,
      restarted.status.containerStatuses[0].containerID.split('://')[1],
    );
  });

  test('the same objects pushed to a second cluster are records of their own', async () => {
    const second = await createCluster(t, tenant.adminToken, tenant.accountId, 'staging');
    const res = await push(t, tenant.adminToken, tenant.accountId, second.id, sampleText('01-cluster.json'));
    assert.equal(res.body.created, 10);
    const both = await resources(tenant, '&resource_types=Namespace');
    assert.equal(both.total_count, 16);
    assert.equal(
      (await resources(tenant, `&resource_types=Namespace&cluster_id=${second.id}`)).total_count,
      8,
    );
  });
});

describe('versions and deletions', () => {
  let tenant: TestTenant;
  let clusterId: string;
  before(async () => {
    tenant = await createTenant(t);
    clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId)).id;
  });

  const withVersion = (object: KubeJson, rv: string, label = rv) => {
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = rv;
    copy.metadata.labels = { ...copy.metadata.labels, version: label };
    return copy;
  };

  test('an older version pushed after a newer one is kept as history, not as the latest', async () => {
    const sa = sampleObject('ServiceAccount', 'default', 'ci-deployer');
    await push(t, tenant.adminToken, tenant.accountId, clusterId, withVersion(sa, '900'));
    const late = await push(t, tenant.adminToken, tenant.accountId, clusterId, withVersion(sa, '899'));
    assert.equal(late.body.created, 1);
    assert.equal((await latest(tenant, clusterId, sa.metadata.uid)).resource_version, '900');
    const older = await get(tenant, `/clusters/${clusterId}/resources/${sa.metadata.uid}_899`);
    assert.ok(older.version_overwritten_at);
    const newer = await push(
      t,
      tenant.adminToken,
      tenant.accountId,
      clusterId,
      list([withVersion(sa, '1000'), withVersion(sa, '950')]),
    );
    assert.equal(newer.body.created, 2);
    assert.equal((await latest(tenant, clusterId, sa.metadata.uid)).resource_version, '1000');
    const history = await resources(tenant, '&include_history=true&resource_types=ServiceAccount');
    assert.deepEqual(
      history.entries.map((r: KubeJson) => [r.resource_version, r.version_overwritten_at === null]).sort(),
      [
        ['1000', true],
        ['899', false],
        ['900', false],
        ['950', false],
      ],
    );
  });

  test('snapshot mode deletes absent objects of the pushed kinds only; pushed again, they come back', async () => {
    await pushSampleCluster(t, tenant.adminToken, tenant.accountId, clusterId);
    const pods = sampleItems('03-pods.json');
    const [dropped1, dropped2] = [pods[0], pods[5]];
    const partial = list(pods.filter((p) => p !== dropped1 && p !== dropped2));
    const rbacBefore = await resources(tenant, '&resource_types=Role,ClusterRole');

    const res = await push(t, tenant.adminToken, tenant.accountId, clusterId, partial, {
      query: '?mode=snapshot',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.mode, res.body.deleted, res.body.unchanged], ['snapshot', 2, 24]);
    for (const pod of [dropped1, dropped2]) {
      const record = await latest(tenant, clusterId, pod.metadata.uid);
      assert.equal(record.deletion_source, 'snapshot');
      assert.equal((await containers(tenant, `pod_uid:${pod.metadata.uid}`)).total_count, 0);
    }
    assert.deepEqual(
      await resources(tenant, '&resource_types=Role,ClusterRole'),
      rbacBefore,
      'other kinds untouched',
    );

    const full = await push(t, tenant.adminToken, tenant.accountId, clusterId, list(pods), {
      query: '?mode=snapshot',
    });
    assert.deepEqual([full.body.deleted, full.body.restored, full.body.created], [0, 2, 0]);
    const record = await latest(tenant, clusterId, dropped1.metadata.uid);
    assert.equal(record.deleted_at, null);
    assert.equal((await containers(tenant, `pod_uid:${dropped1.metadata.uid}`)).total_count, 1);
  });

  test('a DELETED event for an object never seen stores it as deleted; deleting twice counts once', async () => {
    const pod = sampleObject('Pod', 'payments', 'debug-shell');
    pod.metadata.uid = 'a9d4c3b2-0000-4000-8000-00000000dead';
    const event = JSON.stringify({ type: 'DELETED', object: pod });
    const first = await push(t, tenant.adminToken, tenant.accountId, clusterId, event);
    assert.deepEqual([first.body.created, first.body.deleted], [1, 1]);
    const second = await push(t, tenant.adminToken, tenant.accountId, clusterId, event);
    assert.deepEqual([second.body.created, second.body.deleted, second.body.unchanged], [0, 0, 1]);
    assert.equal((await latest(tenant, clusterId, pod.metadata.uid)).deletion_source, 'watch');
  });
});

describe('inventory owners', () => {
  test('pods pushed before their controllers get their top owner once the controllers arrive', async () => {
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId);
    await push(t, tenant.adminToken, tenant.accountId, cluster.id, sampleText('03-pods.json'));
    const web = await containers(tenant, 'owner_namespace:storefront,name:nginx');
    assert.equal(web.total_count, 3);
    for (const entry of web.entries) {
      assert.deepEqual(
        [entry.owner_kind, entry.owner_resource_version, entry.owner_id],
        ['ReplicaSet', '', ''],
      );
    }
    await push(t, tenant.adminToken, tenant.accountId, cluster.id, sampleText('02-workloads.json'));
    const deployment = sampleObject('Deployment', 'storefront', 'web');
    const resolved = await containers(tenant, 'owner_namespace:storefront,name:nginx');
    for (const entry of resolved.entries) {
      assert.deepEqual(
        [entry.owner_kind, entry.owner_name, entry.owner_uid, entry.owner_resource_version, entry.owner_id],
        [
          'Deployment',
          'web',
          deployment.metadata.uid,
          deployment.metadata.resourceVersion,
          `${deployment.metadata.uid}_${deployment.metadata.resourceVersion}`,
        ],
      );
    }
  });
});

describe('who may push where', () => {
  test('editors push; viewers get 403; clusters of other accounts and tenants are 404', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId);
    const otherCluster = await createCluster(t, other.adminToken, other.accountId);
    const secondAccount = await tenant.addAccount();
    const body = sampleText('01-cluster.json');

    const editor = await tenant.addUser([{ level: 'account', role: 'editor' }]);
    assert.equal((await push(t, editor.token, tenant.accountId, cluster.id, body)).status, 200);
    const viewer = await tenant.addUser([{ level: 'tenant', role: 'viewer' }]);
    const forbidden = await push(t, viewer.token, tenant.accountId, cluster.id, body);
    assert.deepEqual([forbidden.status, forbidden.body.code], [403, 'forbidden']);
    // The role is checked before the body is read: a too-large body from a viewer is 403, not 413.
    const large = await push(
      t,
      viewer.token,
      tenant.accountId,
      cluster.id,
      Buffer.alloc(65 * 1024 * 1024, 0x20),
    );
    assert.equal(large.status, 403);

    for (const [accountId, clusterId] of [
      [tenant.accountId, otherCluster.id],
      [secondAccount, cluster.id],
      [tenant.accountId, 'not-a-uuid'],
    ]) {
      const res = await push(t, tenant.adminToken, accountId as string, clusterId as string, body);
      assert.deepEqual([res.status, res.body.code], [404, 'not_found']);
    }
    const res = await t.request({
      method: 'GET',
      url: `/clusters/${otherCluster.id}/resources/${sampleItems('01-cluster.json')[0].metadata.uid}/latest`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 404);
    assert.equal((await resources(other)).total_count, 0, 'nothing reached the other tenant');
  });
});
