/**
 * GET /accounts/{account_id}/container_runtime_latest_baseline_fingerprints (#7): one entry per
 * workload container whose window closed; filters, q, sort, page paging and children_limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  at,
  exec,
  getJson,
  pushOk,
  putSettings,
  WEB,
  type WorkloadRef,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const API: WorkloadRef = {
  ...WEB,
  workload: 'api',
  container: 'api',
  pod: 'api-5d4f8b7c9-q2w3e',
  containerId: `containerd://${'c3'.repeat(32)}`,
  image: 'ghcr.io/shop/api:2.0.0',
};
const NGINX: WorkloadRef = {
  ...WEB,
  container: 'nginx',
  containerId: `containerd://${'d4'.repeat(32)}`,
  image: 'nginx:1.25.4',
};
const JOBS: WorkloadRef = {
  ...WEB,
  workload: 'jobs',
  pod: 'jobs-5d4f8b7c9-j0b5x',
  containerId: `containerd://${'e5'.repeat(32)}`,
};

/** A workload container whose first event is at `start` s: a server with three children, then a late event closing the 60 s window. */
function learned(w: WorkloadRef, start: number) {
  return [
    exec(w, start, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
    ...['backup', 'report', 'sync'].map((comm, i) =>
      exec(w, start + 10 + i, { pid: 10 + i, ppid: 1, comm, exe: `/app/bin/${comm}` }),
    ),
    exec(w, start + 200, { pid: 2, ppid: 0, comm: 'server', exe: '/app/server' }),
  ];
}

describe('latest baseline fingerprints', () => {
  let token: string;
  let accountId: string;
  let adminId: string;
  let a: string;
  let b: string;
  const page = (query = '') =>
    getJson(t, token, `/accounts/${accountId}/container_runtime_latest_baseline_fingerprints${query}`);
  const names = (body: {
    entries: { cluster_id: string; workload_name: string; container_name: string }[];
  }) => body.entries.map((e) => `${e.cluster_id === a ? 'a' : 'b'}:${e.workload_name}/${e.container_name}`);

  before(async () => {
    const tenant = await createTenant(t);
    token = tenant.adminToken;
    accountId = tenant.accountId;
    adminId = tenant.admin.userId;
    a = (await createCluster(t, token, accountId, 'a')).id;
    b = (await createCluster(t, token, accountId, 'b')).id;
    await putSettings(t, { token, accountId }, { learning_window_seconds: 60 });
    await pushOk(t, { token, accountId, clusterId: a }, [
      ...learned(WEB, 0),
      ...learned(API, 10),
      ...learned(NGINX, 20),
      exec(JOBS, 0, { pid: 1, ppid: 0, comm: 'cron', exe: '/usr/sbin/cron' }),
    ]);
    await pushOk(t, { token, accountId, clusterId: b }, learned(WEB, 30));
  });

  test('one entry per captured workload container, newest capture first by default', async () => {
    const body = await page();
    assert.deepEqual(names(body), ['b:web/app', 'a:web/nginx', 'a:api/api', 'a:web/app']);
    assert.deepEqual(
      body.entries.map((e: { created_at: string }) => e.created_at),
      [at(90), at(80), at(70), at(60)],
    );
    assert.deepEqual([body.page, body.page_size, body.page_count, body.total_count], [1, 50, 1, 4]);
    const api = body.entries[2];
    assert.equal(api.account_id, accountId);
    assert.equal(api.created_by, adminId);
    assert.equal(api.image_name, 'ghcr.io/shop/api:2.0.0');
    assert.equal(api.workload_kind, 'Deployment');
    assert.equal(api.fingerprint.containers[0].id, 'c3'.repeat(32));
    assert.equal(api.fingerprint.kind, 'Fingerprint');
  });

  test('filters by every documented key; the value may hold colons', async () => {
    assert.deepEqual(names(await page(`?filters=cluster_id:${b}`)), ['b:web/app']);
    assert.deepEqual(names(await page('?filters=image_name:ghcr.io/shop/api:2.0.0')), ['a:api/api']);
    assert.deepEqual(names(await page('?filters=container_name:nginx')), ['a:web/nginx']);
    assert.deepEqual(names(await page(`?filters=container_id:containerd://${'d4'.repeat(32)}`)), [
      'a:web/nginx',
    ]);
    assert.equal((await page('?filters=workload_name:web,workload_name:api')).total_count, 4);
    assert.equal((await page('?filters=workload_name:web,container_name:app')).total_count, 2);
    assert.equal((await page('?filters=namespace:shop,workload_kind:Deployment')).total_count, 4);
    assert.equal((await page('?filters=namespace:other')).total_count, 0);
  });

  test('q matches image, workload, namespace and container names, case-insensitively', async () => {
    assert.deepEqual(names(await page('?q=API')), ['a:api/api']);
    assert.deepEqual(names(await page('?q=nginx:1.25')), ['a:web/nginx']);
  });

  test('sort by an allowed field, ties broken by id', async () => {
    const byImage = await page('?sort=image_name:asc');
    const images = byImage.entries.map((e: { image_name: string }) => e.image_name);
    assert.deepEqual(images, [...images].sort());
    const oldest = await page('?sort=created_at:asc');
    assert.deepEqual(names(oldest), [...names(await page())].reverse());
  });

  test('page paging: a page past the end is empty with the true totals', async () => {
    const first = await page('?page_size=3');
    const second = await page('?page_size=3&page=2');
    assert.deepEqual([first.entries.length, second.entries.length, first.page_count], [3, 1, 2]);
    assert.equal(new Set([...names(first), ...names(second)]).size, 4);
    const past = await page('?page_size=3&page=9');
    assert.deepEqual([past.entries, past.total_count, past.page_count, past.page], [[], 4, 2, 9]);
  });

  test('children_limit truncates the process tree, most recently run children first', async () => {
    const full = (await page(`?filters=cluster_id:${b}`)).entries[0].fingerprint;
    const children = (fp: {
      containers: { processes: { children: { programs: { comm: string }[] }[] }[] }[];
    }) => fp.containers[0]!.processes[0]!.children.map((c) => c.programs[0]!.comm);
    assert.deepEqual(children(full).sort(), ['backup', 'report', 'sync']);
    const cut = (await page(`?filters=cluster_id:${b}&children_limit=1`)).entries[0].fingerprint;
    assert.deepEqual(children(cut), ['sync']);
    const none = (await page(`?filters=cluster_id:${b}&children_limit=0`)).entries[0].fingerprint;
    assert.deepEqual(none.containers[0].processes, []);
  });

  test('bad parameters are 400', async () => {
    for (const query of [
      '?filters=node:x',
      '?filters=cluster_id:x',
      '?sort=severity:asc',
      '?page=0',
      '?page_size=1001',
      '?children_limit=-1',
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/accounts/${accountId}/container_runtime_latest_baseline_fingerprints${query}`,
        token,
      });
      assert.equal(res.status, 400, query);
    }
  });
});
