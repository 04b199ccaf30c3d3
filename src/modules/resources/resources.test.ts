import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createCluster,
  type KubeJson,
  push,
  pushSampleCluster,
  sampleItems,
  sampleObject,
  sampleText,
} from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let prod: string;
let staging: string;
/** between the sample push to prod and the push to staging */
let between: string;
const ALL = [
  ...sampleItems('01-cluster.json'),
  ...sampleItems('02-workloads.json'),
  ...sampleItems('03-pods.json'),
  ...sampleItems('04-rbac.json'),
];

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  prod = (await createCluster(t, tenant.adminToken, tenant.accountId, 'prod')).id;
  staging = (await createCluster(t, tenant.adminToken, tenant.accountId, 'staging')).id;
  await pushSampleCluster(t, tenant.adminToken, tenant.accountId, prod);
  await new Promise((resolve) => setTimeout(resolve, 20));
  between = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  await push(t, tenant.adminToken, tenant.accountId, staging, sampleText('01-cluster.json'));
});
after(() => t.close());

async function list(query: string, token = tenant.adminToken) {
  const res = await t.request({
    method: 'GET',
    url: `/accounts/${tenant.accountId}/resources${query}`,
    token,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const names = (body: KubeJson) => body.entries.map((r: KubeJson) => r.name);
const count = async (query: string) => (await list(`?page_size=1000${query}`)).total_count;

describe('GET /accounts/{account_id}/resources', () => {
  test('defaults: 50 per page, by name, without payload', async () => {
    const body = await list('');
    assert.equal(body.page_size, 50);
    assert.equal(body.page, 1);
    assert.equal(body.total_count, ALL.length + 10);
    assert.equal(body.page_count, Math.ceil((ALL.length + 10) / 50));
    assert.equal(body.entries.length, 50);
    const sorted = [...names(body)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(names(body), sorted);
    assert.ok(body.entries.every((r: KubeJson) => !('raw' in r)));
  });

  test('paging walks every record once; a page past the end is empty with the true total', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 9; page++) {
      const body = await list(`?page=${page}&page_size=23&sort=namespace:desc`);
      seen.push(...body.entries.map((r: KubeJson) => `${r.cluster_id}/${r.id}`));
    }
    assert.equal(seen.length, ALL.length + 10);
    assert.equal(new Set(seen).size, seen.length);
    const past = await list('?page=100&page_size=1000');
    assert.deepEqual([past.entries, past.total_count, past.page], [[], ALL.length + 10, 100]);
  });

  test('cluster_id, namespace, owner_uid filters; comma lists match any', async () => {
    assert.equal(await count(`&cluster_id=${prod}`), ALL.length);
    assert.equal(await count(`&cluster_id=${staging}`), 10);
    assert.equal(await count(`&cluster_id=${prod},${staging}`), ALL.length + 10);
    assert.equal(await count('&cluster_id=7b0a5c3e-0000-4000-8000-000000000000'), 0);
    const inPayments = ALL.filter((o) => o.metadata.namespace === 'payments').length;
    const inStorefront = ALL.filter((o) => o.metadata.namespace === 'storefront').length;
    assert.equal(await count('&namespace=payments'), inPayments);
    assert.equal(await count('&namespace=payments,storefront'), inPayments + inStorefront);
    const rs = sampleItems('02-workloads.json').find((o) => o.kind === 'ReplicaSet' && o.spec.replicas === 3);
    const owned = await list(`?owner_uid=${rs.metadata.uid}`);
    assert.equal(owned.total_count, 3);
    assert.ok(owned.entries.every((r: KubeJson) => r.kind === 'Pod' && r.owner_uid === rs.metadata.uid));
  });

  test('resource_types: kinds, and the names kubectl accepts', async () => {
    const ofKind = (...kinds: string[]) => ALL.filter((o) => kinds.includes(o.kind)).length;
    assert.equal(await count('&resource_types=Pod'), ofKind('Pod'));
    assert.equal(
      await count('&resource_types=pods,deploy,ClusterRoleBindings'),
      ofKind('Pod', 'Deployment', 'ClusterRoleBinding'),
    );
    assert.equal(await count('&resource_types=Namespace'), ofKind('Namespace') + 8);
    assert.equal(await count('&resource_types=Widget'), 0);
  });

  test('image_digest: resources whose pod spec or status uses the image', async () => {
    const controller = sampleObject('Deployment', 'ingress-nginx', 'ingress-nginx-controller');
    const pinned = controller.spec.template.spec.containers[0].image.split('@')[1];
    const byPinned = await list(`?image_digest=${pinned}`);
    assert.deepEqual(byPinned.entries.map((r: KubeJson) => r.kind).sort(), [
      'Deployment',
      'Pod',
      'ReplicaSet',
    ]);
    assert.equal(await count(`&image_digest=${pinned.slice('sha256:'.length).toUpperCase()}`), 3, 'bare hex');
    const web = sampleItems('03-pods.json').filter((p) => p.metadata.name.startsWith('web-'));
    const fromStatus = web[0].status.containerStatuses[0].imageID.split('@')[1];
    const byStatus = await list(`?image_digest=${fromStatus}`);
    assert.deepEqual(
      byStatus.entries.map((r: KubeJson) => r.name).sort(),
      web.map((p) => p.metadata.name).sort(),
    );
    assert.equal(await count(`&image_digest=${pinned},${fromStatus}`), 6);
    assert.equal(await count(`&image_digest=${pinned}&namespace=storefront`), 0, 'filters combine with AND');
  });

  test('from/to bound ingested_at, RFC 3339 or relative', async () => {
    assert.equal(await count(`&from=${between}`), 10);
    assert.equal(await count(`&to=${between}`), ALL.length);
    assert.equal(await count('&from=now-1h'), ALL.length + 10);
    assert.equal(await count('&to=now-1h'), 0);
    for (const query of [`?from=${between}&to=now-1h`, '?from=yesterday', '?to=2026-13-01T00:00:00Z']) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${tenant.accountId}/resources${query}`,
        token: tenant.adminToken,
      });
      assert.equal(res.status, 400, query);
    }
  });

  test('sort: every allowed field both ways, ties broken by id', async () => {
    const compare = (a: unknown, b: unknown) =>
      a === b ? 0 : a === null ? 1 : b === null ? -1 : (a as string) < (b as string) ? -1 : 1;
    for (const field of ['name', 'namespace', 'kind', 'ingested_at', 'resource_created_at']) {
      for (const direction of ['asc', 'desc']) {
        const body = await list(`?page_size=1000&sort=${field}:${direction}`);
        const keys = body.entries.map((r: KubeJson) => r[field]);
        const expected = [...keys].sort(compare);
        if (direction === 'desc') expected.reverse();
        if (field === 'resource_created_at' && direction === 'desc') continue; // nulls first in desc
        assert.deepEqual(keys, expected, `${field}:${direction}`);
      }
    }
    const bad = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/resources?sort=uid`,
      token: tenant.adminToken,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.validation_details[0].field, 'sort');
  });

  test('with_payload: raw is the object JSON, base64-encoded', async () => {
    const pod = sampleObject('Pod', 'payments', 'debug-shell');
    const body = await list(
      `?with_payload=true&namespace=payments&resource_types=Pod&cluster_id=${prod}&page_size=1000`,
    );
    const record = body.entries.find((r: KubeJson) => r.uid === pod.metadata.uid);
    assert.deepEqual(JSON.parse(Buffer.from(record.raw, 'base64').toString('utf8')), pod);
  });

  test('bad parameters are 400 naming them', async () => {
    for (const [query, field] of [
      ['?cluster_id=prod', 'cluster_id'],
      ['?page=0', 'page'],
      ['?page_size=1001', 'page_size'],
      ['?with_payload=maybe', 'with_payload'],
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${tenant.accountId}/resources${query}`,
        token: tenant.adminToken,
      });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.validation_details[0].field, field);
    }
  });
});

describe('GET /clusters/{cluster_id}/resources/{resource_id} and .../{uid}/latest', () => {
  const pod = sampleObject('Pod', 'payments', 'debug-shell');
  const id = `${pod.metadata.uid}_${pod.metadata.resourceVersion}`;

  test('one record, with its payload unless with_payload=false', async () => {
    const res = await t.request({
      method: 'GET',
      url: `/clusters/${prod}/resources/${id}`,
      token: tenant.adminToken,
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, id);
    assert.equal(res.body.cluster_id, prod);
    assert.equal(res.body.account_id, tenant.accountId);
    assert.equal(res.body.kind, 'Pod');
    assert.equal(res.body.api_version, 'v1');
    assert.equal(res.body.entity_type, 'workload');
    assert.equal(res.body.resource_created_at, new Date(pod.metadata.creationTimestamp).toISOString());
    assert.deepEqual(JSON.parse(Buffer.from(res.body.raw, 'base64').toString('utf8')), pod);
    const bare = await t.request({
      method: 'GET',
      url: `/clusters/${prod}/resources/${id}?with_payload=false`,
      token: tenant.adminToken,
    });
    assert.equal('raw' in bare.body, false);
    const latest = await t.request({
      method: 'GET',
      url: `/clusters/${prod}/resources/${pod.metadata.uid}/latest`,
      token: tenant.adminToken,
    });
    assert.deepEqual(latest.body, res.body);
  });

  test('a viewer of the account reads it; unknown ids, other clusters and other tenants are 404', async () => {
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    assert.equal(
      (await t.request({ method: 'GET', url: `/clusters/${prod}/resources/${id}`, token: viewer.token }))
        .status,
      200,
    );
    const other = await createTenant(t);
    const namespace = sampleObject('Namespace', undefined, 'payments');
    for (const [url, token] of [
      [`/clusters/${prod}/resources/${pod.metadata.uid}_1`, tenant.adminToken],
      [`/clusters/${staging}/resources/${id}`, tenant.adminToken],
      [`/clusters/${staging}/resources/${pod.metadata.uid}/latest`, tenant.adminToken],
      [`/clusters/not-a-uuid/resources/${id}`, tenant.adminToken],
      [`/clusters/${prod}/resources/${id}`, other.adminToken],
      [`/clusters/${staging}/resources/${namespace.metadata.uid}/latest`, other.adminToken],
    ]) {
      const res = await t.request({ method: 'GET', url: url as string, token: token as string });
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], url);
    }
  });
});
