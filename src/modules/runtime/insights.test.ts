/**
 * GET /accounts/{account_id}/container_runtime_insights: filters, container ids, sort and paging;
 * the link between an insight and its inventory container; tenant and account isolation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster, push, sampleObject } from '../../../test/ingest/sample.js';
import {
  exec,
  fileOpen,
  getJson,
  pushOk,
  putSettings,
  type RuntimeTarget,
  WEB,
  type WorkloadRef,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp, type TestTenant } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const hex = (byte: string) => byte.repeat(32);
const API: WorkloadRef = {
  ...WEB,
  workload: 'api',
  pod: 'api-5d4f8b7c9-q2w3e',
  containerId: `containerd://${hex('c3')}`,
};
const QUIET: WorkloadRef = {
  ...WEB,
  workload: 'quiet',
  pod: 'quiet-5d4f8b7c9-x1y2z',
  containerId: `containerd://${hex('d4')}`,
};

/** Learns `server`, then (after the 60 s window) `server` starts `comm`: drift. */
function learnThenRun(w: WorkloadRef, comm: string) {
  return [
    exec(w, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
    exec(w, 100, { pid: 30, ppid: 1, comm, exe: `/usr/bin/${comm}` }),
  ];
}

/** Learns `server`, then `server` restarts after the window: covered, no drift. */
function learnThenRestart(w: WorkloadRef) {
  return [
    exec(w, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
    exec(w, 100, { pid: 2, ppid: 0, comm: 'server', exe: '/app/server' }),
  ];
}

async function setup(tenant: TestTenant, accountId = tenant.accountId) {
  const token = tenant.adminToken;
  const a = (await createCluster(t, token, accountId, 'cluster-a')).id;
  const b = (await createCluster(t, token, accountId, 'cluster-b')).id;
  await putSettings(t, { token, accountId }, { learning_window_seconds: 60 });
  await pushOk(t, { token, accountId, clusterId: a }, [
    ...learnThenRun(WEB, 'bash'),
    ...learnThenRun(API, 'worker'),
    ...learnThenRestart(QUIET),
  ]);
  await pushOk(t, { token, accountId, clusterId: b }, learnThenRun(WEB, 'curl'));
  return { token, accountId, a, b };
}

describe('the insight list', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  const list = (query = '') =>
    getJson(t, s.token, `/accounts/${s.accountId}/container_runtime_insights${query}`);
  const names = (body: { entries: { clusterID: string; summary: { kube_meta: { pod_name: string } } }[] }) =>
    body.entries.map(
      (e) => `${e.clusterID === s.a ? 'a' : 'b'}:${e.summary.kube_meta.pod_name.split('-')[0]}`,
    );

  before(async () => {
    s = await setup(await createTenant(t));
  });

  test('one insight per drifted workload container; a quiet one has none', async () => {
    const body = await list('?sort=created_at:asc');
    assert.equal(body.total_count, 3);
    assert.deepEqual(names(body).sort(), ['a:api', 'a:web', 'b:web']);
  });

  test('filters cluster_id (OR within the key) and container_id; container_ids with or without scheme', async () => {
    assert.deepEqual(names(await list(`?filters=cluster_id:${s.b}`)), ['b:web']);
    assert.equal((await list(`?filters=cluster_id:${s.a},cluster_id:${s.b}`)).total_count, 3);
    assert.deepEqual(names(await list(`?filters=container_id:${hex('c3')}`)), ['a:api']);
    // WEB runs in both clusters under the same container id; API only in cluster a.
    const both = await list(`?container_ids=${hex('c3')},containerd://${hex('a1')}&sort=severity:desc`);
    assert.deepEqual(names(both).sort(), ['a:api', 'a:web', 'b:web']);
    assert.equal(names(both)[2], 'a:api', 'the medium one last');
    assert.deepEqual(names(await list(`?container_ids=${hex('a1')}&filters=cluster_id:${s.a}`)), ['a:web']);
    assert.equal((await list(`?container_ids=${hex('d4')}`)).total_count, 0, 'the quiet container has none');
    assert.equal((await list('?container_ids=&filters=')).total_count, 3, 'empty parameters are not given');
  });

  test('sort by severity, both directions, ties broken by id', async () => {
    const desc = await list('?sort=severity:desc');
    assert.deepEqual(
      desc.entries.map((e: { severity: string }) => e.severity),
      ['high', 'high', 'medium'],
    );
    const asc = await list('?sort=severity:asc');
    assert.deepEqual(
      asc.entries.map((e: { id: string }) => e.id),
      [...desc.entries.map((e: { id: string }) => e.id)].reverse(),
    );
  });

  test('offset paging neither skips nor repeats, and past the end is empty with the true total', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 3; offset++) {
      const page = await list(`?limit=1&offset=${offset}&sort=updated_at:desc`);
      assert.equal(page.entries.length, 1);
      assert.equal(page.has_more, offset < 2);
      seen.push(page.entries[0].id);
    }
    assert.equal(new Set(seen).size, 3);
    const past = await list('?limit=10&offset=50');
    assert.deepEqual([past.entries, past.total_count, past.has_more], [[], 3, false]);
  });

  test('unknown filter keys, bad cluster ids, unknown sort fields and bad limits are 400', async () => {
    for (const query of [
      '?filters=namespace:shop',
      '?filters=cluster_id:nope',
      '?sort=name:asc',
      '?sort=severity:up',
      '?limit=0',
      '?limit=1001',
      '?offset=-1',
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${s.accountId}/container_runtime_insights${query}`,
        token: s.token,
      });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.code, 'validation_failed');
    }
  });
});

describe('an insight and its inventory container', () => {
  const POD = sampleObject('Pod', 'payments', 'debug-shell');
  const RAW_ID: string = POD.status.containerStatuses[0].containerID;
  const SHELL: WorkloadRef = {
    containerId: RAW_ID,
    container: 'shell',
    namespace: 'payments',
    pod: 'debug-shell',
  };

  async function clusterWithPod() {
    const tenant = await createTenant(t);
    const token = tenant.adminToken;
    const cluster = await createCluster(t, token, tenant.accountId, 'linked');
    assert.equal((await push(t, token, tenant.accountId, cluster.id, POD)).status, 200);
    await putSettings(t, { token, accountId: tenant.accountId }, { learning_window_seconds: 60 });
    const inventory = await getJson(
      t,
      token,
      `/accounts/${tenant.accountId}/inventory_containers?filters=pod_name:debug-shell`,
    );
    const target: RuntimeTarget = { token, accountId: tenant.accountId, clusterId: cluster.id };
    return { target, inventoryId: inventory.entries[0].container_id as string };
  }

  test('summary.container_meta.container_id is inventory_containers.container_id, and finds it back', async () => {
    const { target, inventoryId } = await clusterWithPod();
    assert.ok(RAW_ID.startsWith('containerd://') && !inventoryId.includes('://'));
    await pushOk(t, target, learnThenRun(SHELL, 'wget'));
    const body = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights?container_ids=${inventoryId}`,
    );
    assert.equal(body.total_count, 1);
    const insight = body.entries[0];
    assert.equal(insight.summary.container_meta.container_id, inventoryId);
    assert.equal(insight.summary.kube_meta.pod_name, 'debug-shell');
    const detail = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights/${insight.id}`,
    );
    assert.equal(detail.baseline.containers[0].id, inventoryId);
    assert.equal(detail.ongoing.containers[0].id, inventoryId);
    const back = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/inventory_containers?filters=container_id:${insight.summary.container_meta.container_id}`,
    );
    assert.equal(back.entries[0].pod_name, 'debug-shell');
  });

  test("a Falco alert's 12-character container id is completed from the inventory", async () => {
    const { target, inventoryId } = await clusterWithPod();
    const alert = {
      rule: 'Read sensitive file untrusted',
      priority: 'Warning',
      time: '2025-06-01T08:00:05.000000000Z',
      tags: ['mitre_credential_access'],
      output_fields: {
        'evt.type': 'openat',
        'container.id': inventoryId.slice(0, 12),
        'container.name': 'shell',
        'container.image.repository': 'docker.io/library/busybox',
        'container.image.tag': 'latest',
        'k8s.ns.name': 'payments',
        'k8s.pod.name': 'debug-shell',
        'proc.name': 'cat',
        'proc.pid': 77,
        'fd.name': '/etc/shadow',
      },
    };
    const result = await pushOk(t, target, [alert]);
    assert.deepEqual(result.formats, { native: 0, falco: 1 });
    const body = await getJson(t, target.token, `/accounts/${target.accountId}/container_runtime_insights`);
    assert.equal(body.total_count, 1, 'an alert raises an insight even while learning');
    assert.equal(body.entries[0].state, 'learning');
    assert.equal(body.entries[0].summary.container_meta.container_id, inventoryId);
  });

  test('every replica a workload container ran in finds its insight; the summary names the latest', async () => {
    const tenant = await createTenant(t);
    const target: RuntimeTarget = {
      token: tenant.adminToken,
      accountId: tenant.accountId,
      clusterId: (await createCluster(t, tenant.adminToken, tenant.accountId, 'replicas')).id,
    };
    await putSettings(t, target, { learning_window_seconds: 60 });
    const second: WorkloadRef = {
      ...WEB,
      pod: 'web-7c9d8f6b5d-zz9x8',
      containerId: `containerd://${hex('e5')}`,
    };
    await pushOk(t, target, [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      fileOpen(second, 200, 1, 'server', '/etc/passwd', ['O_WRONLY']),
    ]);
    const base = `/accounts/${target.accountId}/container_runtime_insights`;
    for (const id of [hex('a1'), hex('e5')]) {
      const body = await getJson(t, target.token, `${base}?container_ids=${id}`);
      assert.equal(body.total_count, 1, id);
      assert.equal(body.entries[0].summary.container_meta.container_id, hex('e5'));
      assert.equal(body.entries[0].summary.kube_meta.pod_name, 'web-7c9d8f6b5d-zz9x8');
    }
  });
});

describe('isolation', () => {
  test("another tenant's or another account's lists never show this account's runtime data", async () => {
    const owner = await createTenant(t);
    const s = await setup(owner);
    const own = await getJson(t, s.token, `/accounts/${s.accountId}/container_runtime_insights`);
    assert.equal(own.total_count, 3);

    const secondAccount = await owner.addAccount();
    const stranger = await createTenant(t);
    for (const [token, accountId] of [
      [owner.adminToken, secondAccount],
      [stranger.adminToken, stranger.accountId],
    ] as const) {
      for (const path of [
        'container_runtime_insights',
        'container_runtime_insights/http_requests',
        'container_runtime_latest_baseline_fingerprints',
      ]) {
        const body = await getJson(t, token, `/accounts/${accountId}/${path}`);
        assert.equal(body.total_count, 0, path);
      }
      const detail = await t.request({
        method: 'GET',
        url: `/accounts/${accountId}/container_runtime_insights/${own.entries[0].id}`,
        token,
      });
      assert.equal(detail.status, 404, 'an insight of another account is not found through this one');
    }
    const crossTenant = await t.request({
      method: 'GET',
      url: `/accounts/${s.accountId}/container_runtime_insights/${own.entries[0].id}`,
      token: stranger.adminToken,
    });
    assert.equal(crossTenant.status, 404);
  });
});
