/**
 * POST .../ingest/runtime: a bad line refuses the whole push (400 naming it, nothing stored),
 * body decoding, and Idempotency-Key replays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  connect,
  exec,
  fileOpen,
  getJson,
  httpRequest,
  ndjson,
  pushRuntime,
  putSettings,
  type RuntimeTarget,
  WEB,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function freshTarget(): Promise<RuntimeTarget> {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'runtime');
  // A short window, so a small push captures a baseline, drifts and raises an insight.
  await putSettings(
    t,
    { token: tenant.adminToken, accountId: tenant.accountId },
    { learning_window_seconds: 60 },
  );
  return { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
}

/** Learns `server`, then drifts (a shell) and makes one HTTP request: every table gets a row. */
const FULL_PUSH = [
  exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
  fileOpen(WEB, 10, 1, 'server', '/app/config.yaml'),
  exec(WEB, 120, { pid: 50, ppid: 1, comm: 'sh', exe: '/bin/sh', args: ['-c', 'id'] }),
  connect(WEB, 121, 50, 'sh', '203.0.113.9', 4444),
  httpRequest(WEB, 122, { path: '/api/orders/42' }),
];

async function storedCounts(target: RuntimeTarget) {
  const base = `/accounts/${target.accountId}`;
  const [insights, baselines, http] = await Promise.all([
    getJson(t, target.token, `${base}/container_runtime_insights`),
    getJson(t, target.token, `${base}/container_runtime_latest_baseline_fingerprints`),
    getJson(t, target.token, `${base}/container_runtime_insights/http_requests`),
  ]);
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*) as n from runtime_workloads where account_id = $1',
    [target.accountId],
  );
  return {
    insights: insights.total_count,
    baselines: baselines.total_count,
    http: http.total_count,
    workloads: rows[0]!.n,
  };
}

describe('a bad line refuses the whole push', () => {
  test('400 names the line and field of the first bad event, and nothing of the push is stored', async () => {
    const target = await freshTarget();
    const lines = FULL_PUSH.map((event) => JSON.stringify(event));
    const bad = { ...FULL_PUSH[2], process: { pid: -1, ppid: 1, comm: 'sh', args: [], uid: 0, gid: 0 } };
    lines.splice(3, 0, JSON.stringify(bad), '{"type":"file_open"');
    const res = await pushRuntime(t, target, lines.join('\n'));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.code, 'validation_failed');
    assert.equal(res.body.validation_details.length, 1, 'only the first bad line is reported');
    const [detail] = res.body.validation_details;
    assert.equal(detail.field, 'line 4 process.pid');
    assert.equal(detail.param, 'body');
    assert.match(res.body.message, /^line 4 process\.pid: .*nothing from this push was stored$/);
    assert.deepEqual(await storedCounts(target), { insights: 0, baselines: 0, http: 0, workloads: 0 });
  });

  test('blank lines count: invalid JSON on line 3 after two blank lines', async () => {
    const target = await freshTarget();
    const res = await pushRuntime(t, target, `\n\n{"type": \n${JSON.stringify(FULL_PUSH[0])}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.validation_details[0].field, 'line 3');
    assert.match(res.body.validation_details[0].message, /not valid JSON/);
  });

  test('a bad line after good pushes leaves the earlier data exactly as it was', async () => {
    const target = await freshTarget();
    assert.equal((await pushRuntime(t, target, FULL_PUSH)).status, 200);
    const before = await storedCounts(target);
    const state = await t.db.query('select state from runtime_workloads where account_id = $1', [
      target.accountId,
    ]);
    const later = [exec(WEB, 300, { pid: 60, ppid: 1, comm: 'curl' }), { ...FULL_PUSH[0], type: 'exec' }];
    const res = await pushRuntime(t, target, ndjson(later));
    assert.equal(res.status, 400);
    assert.equal(res.body.validation_details[0].field, 'line 2 type');
    assert.deepEqual(await storedCounts(target), before);
    const after = await t.db.query('select state from runtime_workloads where account_id = $1', [
      target.accountId,
    ]);
    assert.deepEqual(after.rows, state.rows);
  });

  test('an empty body, or one of blank lines only, is 400; an unknown encoding 415', async () => {
    const target = await freshTarget();
    const empty = await pushRuntime(t, target, '');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.validation_details[0].code, 'required');
    const blank = await pushRuntime(t, target, '\n\n');
    assert.equal(blank.status, 200, 'blank lines are no events, not an error');
    assert.equal(blank.body.events, 0);
    const brotli = await pushRuntime(t, target, ndjson(FULL_PUSH), { 'content-encoding': 'br' });
    assert.equal(brotli.status, 415);
  });
});

describe('concurrent pushes to one cluster', () => {
  test('serialise: no push loses the update of another of a shared state or observation', async () => {
    const target = await freshTarget();
    const pushes = Array.from({ length: 6 }, (_, i) => [
      exec(WEB, i, { pid: 100 + i, ppid: 0, comm: 'server', exe: '/app/server' }),
      httpRequest(WEB, i, { path: `/api/orders/${i}` }),
    ]);
    const results = await Promise.all(pushes.map((events) => pushRuntime(t, target, events)));
    assert.deepEqual(
      results.map((res) => res.status),
      pushes.map(() => 200),
    );
    const page = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights/http_requests`,
    );
    assert.equal(page.entries[0].request_count, 6);
    const { rows } = await t.db.query<{ state: string }>(
      'select state from runtime_workloads where account_id = $1',
      [target.accountId],
    );
    assert.equal(JSON.parse(rows[0]!.state).baseline.eventCount, 6);
  });
});

describe('Idempotency-Key', () => {
  test('a retry replays the first answer and changes nothing; the key on another body is 409', async () => {
    const target = await freshTarget();
    const headers = { 'idempotency-key': 'push-0001' };
    const first = await pushRuntime(t, target, FULL_PUSH, headers);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.equal(first.body.insights, 1);
    const stored = await storedCounts(target);
    const observation = (
      await getJson(t, target.token, `/accounts/${target.accountId}/container_runtime_insights/http_requests`)
    ).entries[0];

    const retry = await pushRuntime(t, target, FULL_PUSH, headers);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.body, first.body);
    assert.deepEqual(await storedCounts(target), stored);
    const again = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights/http_requests`,
    );
    assert.equal(
      again.entries[0].request_count,
      observation.request_count,
      'the request was not counted twice',
    );

    const other = await pushRuntime(t, target, FULL_PUSH.slice(0, 2), headers);
    assert.equal(other.status, 409);
    assert.equal(other.body.code, 'conflict');
  });

  test('without a key the same push is applied twice (counts grow)', async () => {
    const target = await freshTarget();
    await pushRuntime(t, target, FULL_PUSH);
    await pushRuntime(t, target, FULL_PUSH);
    const page = await getJson(
      t,
      target.token,
      `/accounts/${target.accountId}/container_runtime_insights/http_requests`,
    );
    assert.equal(page.entries[0].request_count, 2);
  });
});

describe('states across pushes', () => {
  test('a stream pushed in three parts stores the state, baselines and drift count of one push of it', async () => {
    // Paths with quotes and backslashes: the state's JSON must survive its write unchanged.
    const events = [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      fileOpen(WEB, 10, 1, 'server', '/app/"quoted" \\ back\\slash.yaml'),
      exec(WEB, 120, { pid: 50, ppid: 1, comm: 'sh', exe: '/bin/sh', args: ['-c', 'echo "a\\b"'] }),
      connect(WEB, 121, 50, 'sh', '203.0.113.9', 4444),
      fileOpen(WEB, 130, 50, 'sh', '/tmp/x"y'),
      exec(WEB, 140, { pid: 51, ppid: 50, comm: 'curl', exe: '/usr/bin/curl' }),
    ];
    const whole = await freshTarget();
    const parts = await freshTarget();
    const once = await pushRuntime(t, whole, events);
    assert.equal(once.status, 200, once.text);
    const answers: Record<string, number>[] = [];
    for (const part of [events.slice(0, 2), events.slice(2, 4), events.slice(4)]) {
      const res = await pushRuntime(t, parts, part);
      assert.equal(res.status, 200, res.text);
      answers.push(res.body);
    }
    const sum = (field: string) => answers.reduce((total, body) => total + (body[field] ?? 0), 0);
    assert.ok(once.body.drift_events > 0 && once.body.baselines_captured === 1);
    assert.equal(sum('drift_events'), once.body.drift_events);
    assert.equal(sum('baselines_captured'), once.body.baselines_captured);
    const stateOf = async (target: RuntimeTarget) => {
      const { rows } = await t.db.query<{ state: string }>(
        'select state from runtime_workloads where account_id = $1',
        [target.accountId],
      );
      assert.equal(rows.length, 1);
      // The cluster's id is the only difference between the two targets.
      return JSON.parse(rows[0]!.state.replaceAll(target.clusterId, '<cluster>'));
    };
    const state = await stateOf(parts);
    assert.deepEqual(state, await stateOf(whole));
    assert.ok(JSON.stringify(state).includes('/app/\\"quoted\\" \\\\ back\\\\slash.yaml'));
  });
});
