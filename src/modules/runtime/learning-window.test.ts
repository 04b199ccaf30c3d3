/**
 * The baseline learning window through the endpoint: its time and count boundaries, a window
 * spanning pushes, and the per-account setting applied to workload containers still learning.
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
  type RuntimeTarget,
  WEB,
  type WorkloadRef,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function target(settings: Parameters<typeof putSettings>[2]): Promise<RuntimeTarget> {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'window');
  await putSettings(t, { token: tenant.adminToken, accountId: tenant.accountId }, settings);
  return { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
}

const baselines = (x: RuntimeTarget) =>
  getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_latest_baseline_fingerprints`);
const insights = (x: RuntimeTarget) =>
  getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_insights`);

/** The drift flag of each child of the one top-level process (the server), by program name. */
function childPrograms(fingerprint: { containers: { processes: Process[] }[] }) {
  const roots = fingerprint.containers[0]!.processes;
  assert.equal(roots.length, 1);
  return Object.fromEntries(roots[0]!.children.map((child) => [child.programs[0]!.comm, child.drift]));
}
interface Process {
  drift: boolean;
  programs: { comm: string }[];
  children: Process[];
}

const server = (w: WorkloadRef = WEB) => exec(w, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' });
const child = (seconds: number, pid: number, comm: string, w: WorkloadRef = WEB) =>
  exec(w, seconds, { pid, ppid: 1, comm, exe: `/app/bin/${comm}` });

describe('time window (600 s)', () => {
  test('an event 1 ms before the end is learned; the one at the end is compared and drifts', async () => {
    const x = await target({ learning_window_seconds: 600 });
    const result = await pushOk(t, x, [server(), child(599.999, 10, 'backup'), child(600, 11, 'worker')]);
    assert.equal(result.baselines_captured, 1);
    assert.equal(result.drift_events, 1);

    const [baseline] = (await baselines(x)).entries;
    assert.equal(baseline.created_at, at(600), 'captured at the end of the window, not at the event');
    assert.deepEqual(childPrograms(baseline.fingerprint), { backup: false });
    assert.match(baseline.notes, /Learned from 2 events .* \(learning window: 600 s\)/);

    const list = await insights(x);
    assert.equal(list.total_count, 1);
    assert.equal(list.entries[0].baselineID, baseline.id);
    const detail = await getJson(
      t,
      x.token,
      `/accounts/${x.accountId}/container_runtime_insights/${list.entries[0].id}`,
    );
    assert.deepEqual(childPrograms(detail.ongoing), { worker: true });
    assert.deepEqual(childPrograms(detail.baseline), { backup: false });
  });

  test('covered activity after the window raises no insight; learning alone raises none', async () => {
    const x = await target({ learning_window_seconds: 600 });
    const learning = await pushOk(t, x, [server(), child(300, 10, 'backup')]);
    assert.equal(learning.baselines_captured, 0);
    assert.equal((await baselines(x)).total_count, 0, 'no baseline while the window is open');
    assert.equal((await insights(x)).total_count, 0);

    const later = await pushOk(t, x, [child(900, 12, 'backup')]);
    assert.equal(later.baselines_captured, 1, 'a later push closes the window');
    assert.equal(later.drift_events, 0);
    assert.equal((await baselines(x)).entries[0].created_at, at(600));
    assert.equal((await insights(x)).total_count, 0);
  });

  test('an event older than the capture, arriving after it, is compared, not learned', async () => {
    const x = await target({ learning_window_seconds: 600 });
    await pushOk(t, x, [server(), child(700, 10, 'backup')]);
    const late = await pushOk(t, x, [child(100, 11, 'rsync')]);
    assert.equal(late.drift_events, 1);
    const [baseline] = (await baselines(x)).entries;
    assert.deepEqual(childPrograms(baseline.fingerprint), {}, 'the frozen baseline did not learn rsync');
  });
});

describe('count window', () => {
  test('the n-th learned event captures the baseline at its own time; the next one is compared', async () => {
    const x = await target({ learning_window_seconds: 3600, learning_window_max_events: 3 });
    const result = await pushOk(t, x, [
      server(),
      child(10, 10, 'backup'),
      child(20, 11, 'report'),
      child(30, 12, 'curl'),
    ]);
    assert.equal(result.baselines_captured, 1);
    const [baseline] = (await baselines(x)).entries;
    assert.equal(baseline.created_at, at(20));
    assert.deepEqual(childPrograms(baseline.fingerprint), { backup: false, report: false });
    assert.match(baseline.notes, /Learned from 3 events .*3600 s or 3 events/);
    assert.equal((await insights(x)).entries[0].severity, 'high', 'curl outside the baseline');
  });

  test('the count spans pushes', async () => {
    const x = await target({ learning_window_seconds: 3600, learning_window_max_events: 3 });
    assert.equal((await pushOk(t, x, [server(), child(10, 10, 'backup')])).baselines_captured, 0);
    assert.equal(
      (await pushOk(t, x, [child(20, 11, 'report'), child(25, 12, 'sync')])).baselines_captured,
      1,
    );
    assert.equal((await baselines(x)).entries[0].created_at, at(20));
  });
});

describe('the account setting', () => {
  test('a shorter window set while a workload container learns closes it by the new rule', async () => {
    const x = await target({ learning_window_seconds: 3600 });
    await pushOk(t, x, [server(), child(100, 10, 'backup')]);
    await putSettings(t, x, { learning_window_seconds: 60 });
    const result = await pushOk(t, x, [child(120, 11, 'backup'), child(130, 12, 'rsync')]);
    assert.equal(result.baselines_captured, 1);
    assert.equal(result.drift_events, 1, 'backup was learned before the change; rsync is new');
    const [baseline] = (await baselines(x)).entries;
    assert.equal(baseline.created_at, at(60));
    assert.deepEqual(childPrograms(baseline.fingerprint), { backup: false });
  });

  test('windows are per workload container: each starts at its own first event', async () => {
    const x = await target({ learning_window_seconds: 600 });
    const api: WorkloadRef = {
      ...WEB,
      workload: 'api',
      pod: 'api-5d4f8b7c9-q2w3e',
      containerId: `containerd://${'b2'.repeat(32)}`,
    };
    await pushOk(t, x, [server(), exec(api, 300, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' })]);
    const result = await pushOk(t, x, [child(700, 10, 'backup'), child(800, 10, 'backup', api)]);
    assert.equal(result.baselines_captured, 1, 'web closed at 600 s, api only at 900 s');
    const page = await baselines(x);
    assert.deepEqual(
      page.entries.map((e: { workload_name: string; created_at: string }) => [e.workload_name, e.created_at]),
      [['web', at(600)]],
    );
  });
});
