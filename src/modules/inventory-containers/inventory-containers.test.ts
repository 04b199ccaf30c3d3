import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createCluster,
  type KubeJson,
  push,
  pushSampleCluster,
  sampleItems,
  sampleText,
} from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let prod: { id: string; name: string };
let staging: { id: string; name: string };

const PODS = sampleItems('03-pods.json');
const LIVE = PODS.filter((p) => !['Succeeded', 'Failed'].includes(p.status.phase));
const LIVE_CONTAINERS = LIVE.flatMap((p) =>
  p.spec.containers.map((c: KubeJson) => ({ pod: p, container: c })),
);

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  prod = await createCluster(t, tenant.adminToken, tenant.accountId, 'prod');
  staging = await createCluster(t, tenant.adminToken, tenant.accountId, 'staging');
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, prod.id);
  const debug = PODS.find((p) => p.metadata.name === 'debug-shell');
  await push(t, tenant.adminToken, tenant.accountId, staging.id, debug);
});
after(() => t.close());

async function list(query = '', token = tenant.adminToken) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/inventory_containers${query}`,
    token,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const filtered = (filters: string, extra = '') =>
  list(`?limit=1000&filters=${encodeURIComponent(filters)}${extra}`);

describe('GET /accounts/{account_id}/inventory_containers', () => {
  test('one entry per container of a live pod; finished pods have none', async () => {
    const body = await list('?limit=1000');
    assert.equal(body.total_count, LIVE_CONTAINERS.length + 1);
    assert.equal(body.has_more, false);
    const finished = PODS.filter((p) => p.status.phase === 'Succeeded').map((p) => p.metadata.uid);
    assert.equal(finished.length, 3);
    assert.ok(body.entries.every((c: KubeJson) => !finished.includes(c.pod_uid)));
  });

  test('an entry: container id without its runtime prefix, image parts, the top owner, the cluster name', async () => {
    const pod = LIVE.find((p) => p.metadata.name.startsWith('payments-api-'));
    const [entry] = (await filtered(`pod_uid:${pod.metadata.uid}`)).entries;
    const status = pod.status.containerStatuses[0];
    const deployment = sampleItems('02-workloads.json').find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'payments-api',
    );
    assert.deepEqual(
      { ...entry, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        cluster_id: prod.id,
        cluster_name: 'prod',
        container_id: status.containerID.replace('containerd://', ''),
        name: 'payments-api',
        image_repo: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/payments-api',
        image_name: 'payments-api',
        image_tag: '2.4.1',
        image_digest: status.imageID.split('@')[1],
        owner_id: `${deployment.metadata.uid}_${deployment.metadata.resourceVersion}`,
        owner_kind: 'Deployment',
        owner_name: 'payments-api',
        owner_namespace: 'payments',
        owner_resource_version: deployment.metadata.resourceVersion,
        owner_uid: deployment.metadata.uid,
        pod_name: pod.metadata.name,
        pod_namespace: 'payments',
        pod_uid: pod.metadata.uid,
      },
    );
    assert.equal(entry.created_at, new Date(status.state.running.startedAt).toISOString());
  });

  test('owners: Deployment, StatefulSet, DaemonSet, CronJob through its Job, a bare pod itself', async () => {
    const ownerOf = async (podName: string) => (await filtered(`pod_name:${podName}`)).entries[0];
    const byPrefix = (prefix: string) => LIVE.find((p) => p.metadata.name.startsWith(prefix)).metadata.name;
    assert.deepEqual(
      [(await ownerOf('redis-0')).owner_kind, (await ownerOf('redis-0')).owner_name],
      ['StatefulSet', 'redis'],
    );
    assert.equal((await ownerOf(byPrefix('node-exporter-'))).owner_kind, 'DaemonSet');
    const warmer = await ownerOf(byPrefix('cache-warmer-'));
    assert.deepEqual([warmer.owner_kind, warmer.owner_name], ['CronJob', 'cache-warmer']);
    const debug = (await filtered(`pod_name:debug-shell,cluster_id:${prod.id}`)).entries[0];
    assert.deepEqual(
      [debug.owner_kind, debug.owner_name, debug.owner_uid],
      ['Pod', 'debug-shell', debug.pod_uid],
    );
  });

  test('images: docker-pullable:// digests, registries with ports, digest-only images, untagged images', async () => {
    const proxy = (await filtered('name:kube-proxy')).entries;
    assert.equal(proxy.length, 2);
    assert.ok(proxy.every((c: KubeJson) => /^sha256:[0-9a-f]{64}$/.test(c.image_digest)));
    const warmer = (await filtered('image_name:cache-warmer')).entries[0];
    assert.deepEqual(
      [warmer.image_repo, warmer.image_tag],
      ['registry.internal.example:5000/tools/cache-warmer', '0.3.0'],
    );
    const shipper = (await filtered('name:log-shipper')).entries;
    assert.equal(shipper.length, 2);
    assert.deepEqual([shipper[0].image_repo, shipper[0].image_tag], ['ghcr.io/acme/log-shipper', '']);
    const busybox = (await filtered(`name:shell,cluster_id:${prod.id}`)).entries[0];
    assert.deepEqual(
      [busybox.image_repo, busybox.image_name, busybox.image_tag],
      ['docker.io/library/busybox', 'busybox', ''],
    );
  });

  test('every filter key matches exactly; the same key twice is OR, different keys AND', async () => {
    const all = (await list('?limit=1000')).entries;
    const keys = [
      'cluster_id',
      'cluster_name',
      'container_id',
      'name',
      'image_digest',
      'image_name',
      'image_repo',
      'image_tag',
      'owner_id',
      'owner_kind',
      'owner_name',
      'owner_namespace',
      'owner_uid',
      'pod_name',
      'pod_uid',
    ];
    const sample = all.find((c: KubeJson) => c.name === 'postgres');
    for (const key of keys) {
      const expected = all
        .filter((c: KubeJson) => c[key] === sample[key])
        .map((c: KubeJson) => c.id)
        .sort();
      const got = (await filtered(`${key}:${sample[key]}`)).entries.map((c: KubeJson) => c.id).sort();
      assert.deepEqual(got, expected, key);
      assert.ok(got.length >= 1 && got.length < all.length, key);
    }
    assert.equal((await filtered('owner_kind:StatefulSet,owner_kind:DaemonSet')).total_count, 4 + 1 + 2 + 2);
    assert.equal((await filtered('owner_kind:StatefulSet,owner_namespace:payments')).total_count, 4);
    assert.equal((await filtered(`cluster_id:${staging.id}`)).total_count, 1);
    const digest = sample.image_digest.slice('sha256:'.length);
    assert.equal((await filtered(`image_digest:${digest}`)).total_count, 2, 'bare hex digest');
  });

  test('q: case-insensitive substring of the documented text fields, matched literally', async () => {
    const body = await list('?q=LEDGER&limit=1000');
    assert.equal(body.total_count, 4);
    assert.ok(body.entries.every((c: KubeJson) => c.owner_name === 'ledger'));
    assert.equal((await list('?q=dkr.ecr')).total_count, 2);
    assert.equal((await list('?q=_')).total_count, 0);
  });

  test('sort: each allowed field, both ways; limit/offset paging with has_more', async () => {
    for (const field of [
      'name',
      'cluster_name',
      'container_id',
      'image_digest',
      'image_name',
      'image_repo',
      'image_tag',
      'owner_kind',
      'owner_name',
      'owner_namespace',
      'created_at',
    ]) {
      for (const direction of ['asc', 'desc']) {
        const keys = (await list(`?limit=1000&sort=${field}:${direction}`)).entries.map(
          (c: KubeJson) => c[field],
        );
        const expected = [...keys].sort();
        if (direction === 'desc') expected.reverse();
        assert.deepEqual(keys, expected, `${field}:${direction}`);
      }
    }
    const total = LIVE_CONTAINERS.length + 1;
    const seen: string[] = [];
    for (let offset = 0; offset < total; offset += 7) {
      const page = await list(`?limit=7&offset=${offset}`);
      assert.equal(page.has_more, offset + 7 < total);
      seen.push(...page.entries.map((c: KubeJson) => c.id));
    }
    assert.equal(new Set(seen).size, total);
    const past = await list(`?offset=${total + 5}`);
    assert.deepEqual([past.entries, past.has_more, past.total_count], [[], false, total]);
    assert.equal((await list()).entries.length, Math.min(100, total), 'default limit 100');
  });

  test('bad input is 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['?sort=pod_uid', 'sort'],
      ['?filters=namespace:payments', 'filters'],
      ['?filters=cluster_id:prod', 'filters'],
      ['?filters=nonsense', 'filters'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?offset=-1', 'offset'],
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${tenant.accountId}/inventory_containers${query}`,
        token: tenant.adminToken,
      });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field, query);
    }
  });

  test("a deleted pod's containers leave the inventory; other tenants see nothing", async () => {
    const other = await createTenant(t);
    const otherCluster = await createCluster(t, other.adminToken, other.accountId);
    await push(t, other.adminToken, other.accountId, otherCluster.id, sampleText('03-pods.json'));
    const pod = LIVE.find((p) => p.metadata.name === 'redis-0');
    const res = await push(t, other.adminToken, other.accountId, otherCluster.id, {
      type: 'DELETED',
      object: pod,
    });
    assert.equal(res.body.deleted, 1);
    const theirs = await t.request({
      method: 'GET',
      url: `/accounts/${other.accountId}/inventory_containers?limit=1000`,
      token: other.adminToken,
    });
    assert.equal(theirs.body.total_count, LIVE_CONTAINERS.length - 1);
    assert.ok(theirs.body.entries.every((c: KubeJson) => c.cluster_id === otherCluster.id));
    assert.equal((await filtered('pod_name:redis-0')).total_count, 1, 'the first tenant keeps its redis-0');
  });
});
