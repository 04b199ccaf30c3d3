/**
 * The benchmark's pure parts: the size a tenth of, the verdicts of the tables, and windows of load
 * merged into one figure.
 * Part of `npm test`; the suite as a whole runs in CI through the smoke run.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mergeWindows, turnsOf } from './load/windows.js';
import type { CaseResult } from './load-phase.js';
import { listPass, memoryTable, p99Growth } from './report.js';
import { SIZES, tenth } from './sizes.js';

describe('tenth', () => {
  test('keeps every kind of data, one cluster holding both clusters’ workloads', () => {
    const small = SIZES.small.dataset;
    const cut = tenth(small);
    assert.equal(cut.clusters, 1);
    assert.equal(cut.cluster.deployments, Math.round(small.cluster.deployments / 10) * small.clusters);
    assert.equal(cut.images, Math.round(small.images / 10));
    assert.ok(cut.runtimeEvents >= 1 && cut.cluster.serviceAccounts >= 1);
  });
});

const result = (name: string, p99: number, rps: number, ok = 10, tps?: number): CaseResult => ({
  name,
  endpoint: 'x',
  kind: 'page1',
  path: '/',
  response_bytes: 1,
  server: {
    requests: ok,
    ok,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    seconds: 1,
    rps,
    p50_ms: p99,
    p90_ms: p99,
    p99_ms: p99,
    max_ms: p99,
    mb_per_s: 0,
  },
  server_cpu_ms_per_req: 1,
  ...(tps === undefined
    ? {}
    : { db_ceiling: { tps, p50_ms: 1, p99_ms: 1, transactions: 1, failed: 0, statements: 2 } }),
});

describe('verdicts', () => {
  test('a list passes on p99 within the engine limit and half the database ceiling', () => {
    assert.equal(listPass(result('a', 50, 100, 10, 200), 'postgres'), true);
    assert.equal(listPass(result('a', 51, 100, 10, 200), 'postgres'), false);
    assert.equal(listPass(result('a', 40, 99, 10, 200), 'postgres'), false);
    assert.equal(listPass(result('a', 199, 10), 'pglite'), true);
  });

  test('a case that completed no request has no verdict', () => {
    assert.equal(listPass(result('a', 0, 0, 0), 'postgres'), undefined);
  });

  test('growth is per case name, against the smaller run', () => {
    const growth = p99Growth([result('a', 30, 1), result('b', 10, 1)], [result('a', 10, 1)]);
    assert.deepEqual([...growth], [['a', 3]]);
  });

  test('the memory table has the server after ingestion, then each case that measured memory', () => {
    const measured = {
      ...result('a', 30, 1),
      memory: {
        rss_start_mib: 180,
        rss_peak_mib: 195.5,
        rss_end_mib: 190,
        heap: { heap_used_mib: 60, heap_total_mib: 100, external_mib: 4.5 },
      },
    };
    const lines = memoryTable([measured, result('b', 10, 1)], { rss_mib: 185, hwm_mib: 198 }).split('\n');
    assert.deepEqual(lines.slice(2), [
      '| after ingestion (peak during it) | 185 | 198 | - | - |',
      '| a | 180 | 196 | 60 / 100 | 4.5 |',
    ]);
  });
});

describe('windows in turns', () => {
  test('a case is split into turns of about two whole seconds', () => {
    assert.deepEqual(turnsOf(10), { turns: 5, seconds: 2 });
    assert.deepEqual(turnsOf(5), { turns: 3, seconds: 2 });
    assert.deepEqual(turnsOf(3), { turns: 2, seconds: 2 });
    assert.deepEqual(turnsOf(0.3), { turns: 1, seconds: 0.3 });
  });

  test('merged windows add their counts, rate over their time together, and keep the worst latency', () => {
    const fast = { ...result('a', 2, 1000, 2000).server, seconds: 2, p50_ms: 1, mb_per_s: 4 };
    const slow = { ...result('a', 9, 500, 1000).server, seconds: 2, p50_ms: 3, mb_per_s: 2, errors: 1 };
    const merged = mergeWindows([fast, slow]);
    assert.equal(merged.ok, 3000);
    assert.equal(merged.errors, 1);
    assert.equal(merged.seconds, 4);
    assert.equal(merged.rps, 750);
    assert.equal(merged.p50_ms, 3);
    assert.equal(merged.p99_ms, 9);
    assert.equal(merged.mb_per_s, 3);
  });
});
