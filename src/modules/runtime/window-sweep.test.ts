/**
 * The learning-window sweep: a workload container that goes quiet while learning gets its baseline
 * once its window has passed on the clock the sweep is given, exactly as a push would have
 * captured it; other accounts keep their own windows; a second sweep changes nothing; runs are
 * bounded and fair across accounts; and the server runs it on its own timer.
 *
 * Every test ends with no workload container of its own still learning, so the sweeps of later
 * tests (which see every account of the test database) find only their own.
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
import { ConfigError, loadConfig } from '../../config.js';
import type { Executor } from '../../db/database.js';
import { applyRuntimePush } from './apply-push.js';
import { lockRuntimeOfCluster } from './ingest-service.js';
import { loadRuntimeSettings } from './settings-service.js';
import { createStateCache } from './state-cache.js';
import { createWindowSweep, SWEEP_CREATED_BY, type SweepOutcome } from './window-sweep.js';

/** The cache's default budget (RUNTIME_STATE_CACHE_MB), stated: these tests depend on it being on. */
const CACHE_MB = 16;
const CACHE_CHARS = CACHE_MB * 1024 * 1024;

let t: TestApp;
before(async () => {
  t = await startTestApp({ RUNTIME_STATE_CACHE_MB: CACHE_MB });
});
after(() => t.close());

const HOUR = 3600;
const MINUTE = 60;
/** Each test's events start on its own day, so no test's clock falls inside another's windows. */
const day = (n: number) => n * 24 * HOUR;

async function target(windowSeconds: number): Promise<RuntimeTarget> {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'sweep');
  await putSettings(
    t,
    { token: tenant.adminToken, accountId: tenant.accountId },
    {
      learning_window_seconds: windowSeconds,
    },
  );
  return { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
}

const baselines = (x: RuntimeTarget) =>
  getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_latest_baseline_fingerprints`);
const insights = (x: RuntimeTarget) =>
  getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_insights`);
const sweepAt = (seconds: number) => t.app.services.runtimeWindowSweep.sweep(new Date(at(seconds)));

/** What is stored of an account's workload containers, by workload name. */
async function stored(accountId: string) {
  const { rows } = await t.db.query<{
    id: string;
    workload_name: string;
    baseline_captured_at: Date | null;
    state: string;
    updated_at: Date;
  }>(
    `select id, workload_name, baseline_captured_at, state, updated_at from runtime_workloads
      where account_id = $1 order by workload_name`,
    [accountId],
  );
  return rows;
}

const server = (w: WorkloadRef, seconds: number) =>
  exec(w, seconds, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' });
const child = (w: WorkloadRef, seconds: number, pid: number, comm: string) =>
  exec(w, seconds, { pid, ppid: 1, comm, exe: `/app/bin/${comm}` });

/** Ten minutes of activity from `start`: the server, then a backup and a report every minute. */
const tenMinutes = (w: WorkloadRef, start: number) => [
  server(w, start),
  ...Array.from({ length: 10 }, (_, i) =>
    child(w, start + (i + 1) * MINUTE, 10 + i, i % 2 === 0 ? 'backup' : 'report'),
  ),
];

/** The drift flag of each child of the one top-level process, by program name. */
function childPrograms(fingerprint: { containers: { processes: Process[] }[] }) {
  const roots = fingerprint.containers[0]!.processes;
  assert.equal(roots.length, 1);
  return Object.fromEntries(roots[0]!.children.map((c) => [c.programs[0]!.comm, c.drift]));
}
interface Process {
  drift: boolean;
  programs: { comm: string }[];
  children: Process[];
}

const workload = (name: string, hex: string): WorkloadRef => ({
  ...WEB,
  workload: name,
  pod: `${name}-7c9d8f6b5d-k2x8p`,
  containerId: `containerd://${hex.repeat(32)}`,
});

describe('the sweep closes windows on the clock it is given', () => {
  test('a quiet workload container is captured once its window has passed, then drifts', async () => {
    const base = day(1);
    const a = await target(HOUR);
    const b = await target(2 * HOUR);
    await pushOk(t, a, tenMinutes(WEB, base));
    await pushOk(t, b, tenMinutes(WEB, base));

    const early = await sweepAt(base + 59 * MINUTE);
    assert.deepEqual(early, {
      examined: 0,
      baselinesCaptured: 0,
      capturedWorkloadIds: [],
      failedAccounts: 0,
    });
    assert.equal((await baselines(a)).total_count, 0, 'one minute before the end: still learning');
    assert.equal((await stored(a.accountId))[0]!.baseline_captured_at, null);

    const due = await sweepAt(base + 61 * MINUTE);
    const [web] = await stored(a.accountId);
    assert.deepEqual(due.capturedWorkloadIds, [web!.id], 'only account a: b learns for two hours');
    assert.equal(due.failedAccounts, 0);
    const [baseline] = (await baselines(a)).entries;
    assert.equal(baseline.created_at, at(base + HOUR), 'captured at the end of the window, not at the sweep');
    assert.equal(baseline.created_by, SWEEP_CREATED_BY);
    assert.equal(baseline.workload_name, 'web');
    assert.deepEqual(childPrograms(baseline.fingerprint), { backup: false, report: false });
    assert.match(baseline.notes, /^Learned from 11 events between .* \(learning window: 3600 s\)\.$/);
    assert.equal(new Date(web!.baseline_captured_at!).toISOString(), at(base + HOUR));
    assert.equal((await baselines(b)).total_count, 0, 'the other account keeps its own window');
    assert.equal((await stored(b.accountId))[0]!.baseline_captured_at, null);
    assert.equal((await insights(a)).total_count, 0, 'a capture alone raises no insight');

    // Idempotent: the same clock, or a later one, finds nothing more to do for a.
    const again = await sweepAt(base + 61 * MINUTE);
    assert.deepEqual(again.capturedWorkloadIds, []);
    assert.deepEqual(await stored(a.accountId), [web]);
    assert.deepEqual((await baselines(a)).entries, [baseline]);

    const later = await pushOk(t, a, [child(WEB, base + 62 * MINUTE, 40, 'backup')]);
    assert.equal(later.drift_events, 0, 'what the baseline learned is covered');
    assert.equal(later.baselines_captured, 0);
    const drift = await pushOk(t, a, [child(WEB, base + 63 * MINUTE, 41, 'worker')]);
    assert.equal(drift.drift_events, 1, 'an unseen program after the capture is drift');
    const list = await insights(a);
    assert.equal(list.total_count, 1);
    assert.equal(list.entries[0].state, 'drift');
    assert.equal(list.entries[0].baselineID, baseline.id);
    const detail = await getJson(
      t,
      a.token,
      `/accounts/${a.accountId}/container_runtime_insights/${list.entries[0].id}`,
    );
    assert.deepEqual(childPrograms(detail.ongoing), { backup: false, worker: true });

    const second = await sweepAt(base + 2 * HOUR);
    assert.equal(second.baselinesCaptured, 1, 'b closes at its own end');
    assert.equal((await baselines(b)).entries[0].created_at, at(base + 2 * HOUR));
  });

  test('an insight raised by an alert while learning gets the baseline the sweep captured', async () => {
    const base = day(2);
    const x = await target(HOUR);
    const alerted = {
      ...child(WEB, base + 5 * MINUTE, 20, 'backup'),
      alert: { source: 'falco', rule: 'Unexpected outbound connection', priority: 'warning', tags: [] },
    };
    await pushOk(t, x, [server(WEB, base), alerted]);
    const [learning] = (await insights(x)).entries;
    assert.equal(learning.state, 'learning');
    assert.equal(learning.baselineCaptured, false);

    assert.equal((await sweepAt(base + HOUR)).baselinesCaptured, 1, 'the window ends at first event + 1 h');
    const [baseline] = (await baselines(x)).entries;
    const [monitoring] = (await insights(x)).entries;
    assert.equal(monitoring.id, learning.id);
    assert.equal(monitoring.state, 'monitoring');
    assert.equal(monitoring.baselineCaptured, true);
    assert.equal(monitoring.baselineID, baseline.id);
    assert.equal(monitoring.severity, learning.severity, 'its signals did not change');
  });

  test('a window starts at the first learned event, not at an older event pushed later', async () => {
    const base = day(3);
    const x = await target(HOUR);
    await pushOk(t, x, tenMinutes(WEB, base));
    await pushOk(t, x, [child(WEB, base - 30 * MINUTE, 30, 'backup')]);
    const [web] = await stored(x.accountId);

    const early = await sweepAt(base + HOUR - 1);
    assert.equal(early.examined, 1, 'the stored first event says it is due');
    assert.deepEqual(early.capturedWorkloadIds, [], 'the window is not over');
    const due = await sweepAt(base + HOUR);
    assert.deepEqual(due.capturedWorkloadIds, [web!.id]);
    assert.equal((await baselines(x)).entries[0].created_at, at(base + HOUR));
  });
});

describe('with a concurrent push', () => {
  test('a push holding the cluster lock wins: the sweep then leaves its capture alone', async () => {
    const base = day(5);
    const tenant = await createTenant(t);
    const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'race');
    const x = { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
    await pushOk(t, x, tenMinutes(WEB, base));

    let sweep: Promise<SweepOutcome> | undefined;
    const cache = createStateCache({ maxChars: CACHE_CHARS });
    await t.db.transaction(async (tx) => {
      // What the ingest service does for a push: the cluster's runtime lock, then the push.
      await lockRuntimeOfCluster(tx, cluster.id);
      sweep = sweepAt(base + 2 * HOUR);
      if (t.db.engine === 'postgres') await untilAnAdvisoryLockIsAwaited(tx);
      await applyRuntimePush(
        tx,
        {
          accountId: x.accountId,
          clusterId: x.clusterId,
          userId: tenant.admin.userId,
          settings: await loadRuntimeSettings(tx, x.accountId),
          now: new Date(),
        },
        [child(WEB, base + 90 * MINUTE, 50, 'worker')],
        cache,
      );
    });
    cache.close();
    const outcome = await sweep!;
    assert.deepEqual(outcome.capturedWorkloadIds, [], 'the push captured it first');
    const [baseline] = (await baselines(x)).entries;
    assert.equal(baseline.created_by, tenant.admin.userId, "the push's capture stands");
    assert.equal(baseline.created_at, at(base + HOUR));
    const [insight] = (await insights(x)).entries;
    assert.equal(insight.state, 'drift', "the push's drift was not overwritten by a stale state");
  });
});

/** PostgreSQL: waits until another session queues for an advisory lock (the sweep, here). */
async function untilAnAdvisoryLockIsAwaited(tx: Executor): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await tx.query<{ waiting: number }>(
      "select count(*) as waiting from pg_locks where locktype = 'advisory' and not granted",
    );
    if (rows[0]!.waiting > 0) return;
    if (Date.now() > deadline) throw new Error('the sweep never waited for the cluster lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('runs', () => {
  test('a run is bounded, and accounts take turns', async () => {
    const base = day(4);
    const a = await target(HOUR);
    const b = await target(HOUR);
    const names = ['alpha', 'bravo', 'charlie'];
    await pushOk(
      t,
      a,
      names.flatMap((name, i) => tenMinutes(workload(name, `a${i}`), base + i * MINUTE)),
    );
    await pushOk(t, b, tenMinutes(workload('delta', 'b0'), base + 5 * MINUTE));
    const sweep = createWindowSweep({ db: t.db, llmQueue: null, periodSeconds: 0, batchSize: 2 });
    const ids = new Map(
      [...(await stored(a.accountId)), ...(await stored(b.accountId))].map((w) => [w.workload_name, w.id]),
    );

    const first = await sweep.sweep(new Date(at(base + 2 * HOUR)));
    assert.equal(first.examined, 2);
    assert.deepEqual(
      new Set(first.capturedWorkloadIds),
      new Set([ids.get('alpha'), ids.get('delta')]),
      "each account's most overdue first",
    );
    const second = await sweep.sweep(new Date(at(base + 2 * HOUR)));
    assert.deepEqual(new Set(second.capturedWorkloadIds), new Set([ids.get('bravo'), ids.get('charlie')]));
    assert.equal((await sweep.sweep(new Date(at(base + 2 * HOUR)))).examined, 0);
    assert.equal((await baselines(a)).total_count, 3);
  });

  test('the server sweeps on its own timer, with the wall clock', async () => {
    const timed = await startTestApp({ RUNTIME_WINDOW_SWEEP_SECONDS: 1 });
    try {
      const tenant = await createTenant(timed);
      const cluster = await createCluster(timed, tenant.adminToken, tenant.accountId, 'timer');
      const x = { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
      // Events of 2025 with the default one-hour window: long over by the wall clock.
      const pushed = await pushOk(timed, x, tenMinutes(WEB, 0));
      assert.equal(pushed.baselines_captured, 0);
      const url = `/accounts/${x.accountId}/container_runtime_latest_baseline_fingerprints`;
      const deadline = Date.now() + 10_000;
      let page = await getJson(timed, x.token, url);
      while (page.total_count === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        page = await getJson(timed, x.token, url);
      }
      assert.equal(page.total_count, 1, 'captured by the background run');
      assert.equal(page.entries[0].created_by, SWEEP_CREATED_BY);
      assert.equal(page.entries[0].created_at, at(HOUR));
    } finally {
      await timed.close();
    }
  });

  test('the period is configured by RUNTIME_WINDOW_SWEEP_SECONDS', () => {
    assert.equal(loadConfig({}).RUNTIME_WINDOW_SWEEP_SECONDS, 60);
    assert.equal(loadConfig({ RUNTIME_WINDOW_SWEEP_SECONDS: '0' }).RUNTIME_WINDOW_SWEEP_SECONDS, 0);
    assert.throws(() => loadConfig({ RUNTIME_WINDOW_SWEEP_SECONDS: '-1' }), ConfigError);
    assert.throws(() => loadConfig({ RUNTIME_WINDOW_SWEEP_SECONDS: 'soon' }), ConfigError);
  });
});
