import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster, push, sampleText } from '../../../test/ingest/sample.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
let tenant: TestTenant;
let clusterId: string;
before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId)).id;
  await push(t, tenant.adminToken, tenant.accountId, clusterId, sampleText('03-pods.json'));
});
after(() => t.close());

const url = (cluster = clusterId, account = tenant.accountId) =>
  `/accounts/${account}/clusters/${cluster}/actions`;
const create = (body: unknown, token = tenant.adminToken) =>
  t.request({ method: 'POST', url: url(), token, body });
const list = (query = '', token = tenant.adminToken) =>
  t.request({ method: 'GET', url: `${url()}${query}`, token });

describe('cluster actions', () => {
  test('a terminate_pod request for a live pod is recorded as Pending', async () => {
    const res = await create({
      action_type: 'terminate_pod',
      target_namespace: 'payments',
      target_pod_name: 'debug-shell',
      parameters: { grace_period_seconds: 0, reason: 'privileged debug pod left running' },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        cluster_id: clusterId,
        account_id: tenant.accountId,
        action_type: 'terminate_pod',
        status: 'Pending',
        target_namespace: 'payments',
        target_pod_name: 'debug-shell',
        parameters: { grace_period_seconds: 0, reason: 'privileged debug pod left running' },
        result: null,
        created_by: tenant.admin.userId,
        created_at: undefined,
        updated_at: undefined,
        deleted_at: null,
      },
    );
  });

  test('bad requests: unknown pods, other action types, unknown fields, bad names', async () => {
    const cases: [unknown, string][] = [
      [
        { action_type: 'terminate_pod', target_namespace: 'payments', target_pod_name: 'no-such-pod' },
        'target_pod_name',
      ],
      [
        { action_type: 'terminate_pod', target_namespace: 'storefront', target_pod_name: 'debug-shell' },
        'target_pod_name',
      ],
      [
        { action_type: 'isolate_pod', target_namespace: 'payments', target_pod_name: 'debug-shell' },
        'action_type',
      ],
      [
        { action_type: 'terminate_pod', target_namespace: 'Payments!', target_pod_name: 'debug-shell' },
        'target_namespace',
      ],
      [{ action_type: 'terminate_pod', target_namespace: 'payments' }, 'target_pod_name'],
      [
        {
          action_type: 'terminate_pod',
          target_namespace: 'payments',
          target_pod_name: 'debug-shell',
          parameters: { force: true },
        },
        'parameters.force',
      ],
      [
        {
          action_type: 'terminate_pod',
          target_namespace: 'payments',
          target_pod_name: 'debug-shell',
          status: 'Done',
        },
        'status',
      ],
    ];
    const before = (await list()).body.total_count;
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.validation_details[0].field, field, JSON.stringify(body));
    }
    assert.equal((await list()).body.total_count, before);
  });

  test('the list is a page list, most recently created first', async () => {
    const tenantB = await createTenant(t);
    const cluster = await createCluster(t, tenantB.adminToken, tenantB.accountId);
    await push(t, tenantB.adminToken, tenantB.accountId, cluster.id, sampleText('03-pods.json'));
    const ids: string[] = [];
    for (const pod of ['debug-shell', 'ledger-0', 'ledger-1']) {
      const res = await t.request({
        method: 'POST',
        url: url(cluster.id, tenantB.accountId),
        token: tenantB.adminToken,
        body: { action_type: 'terminate_pod', target_namespace: 'payments', target_pod_name: pod },
      });
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.id);
    }
    const get = (query: string) =>
      t.request({
        method: 'GET',
        url: `${url(cluster.id, tenantB.accountId)}${query}`,
        token: tenantB.adminToken,
      });
    const all = await get('');
    assert.deepEqual(
      all.body.entries.map((a: { id: string }) => a.id),
      [...ids].reverse(),
    );
    assert.deepEqual(
      [all.body.page, all.body.page_size, all.body.page_count, all.body.total_count],
      [1, 50, 1, 3],
    );
    const second = await get('?page=2&page_size=2');
    assert.deepEqual(
      second.body.entries.map((a: { id: string }) => a.id),
      [ids[0]],
    );
    assert.deepEqual((await get('?page=3&page_size=2')).body.entries, []);
    assert.equal((await get('?page_size=0')).status, 400);
    assert.equal((await get('?page=0')).status, 400);
  });

  test('viewers list, editors create; other clusters, accounts and tenants are 404', async () => {
    const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }]);
    assert.equal((await list('', viewer.token)).status, 200);
    const body = { action_type: 'terminate_pod', target_namespace: 'payments', target_pod_name: 'ledger-0' };
    assert.equal((await create(body, viewer.token)).status, 403);
    const editor = await tenant.addUser([{ level: 'account', role: 'editor' }]);
    assert.equal((await create(body, editor.token)).status, 201);

    const other = await createTenant(t);
    const otherCluster = await createCluster(t, other.adminToken, other.accountId);
    for (const path of [url(otherCluster.id), url('not-a-uuid'), url(clusterId, other.accountId)]) {
      const res = await t.request({ method: 'GET', url: path, token: tenant.adminToken });
      assert.deepEqual([res.status, res.body.code], [404, 'not_found'], path);
    }
  });
});
