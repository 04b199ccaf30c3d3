/**
 * The soak's verdict arithmetic (bench/soak-stats.ts): a wrong slope or bucket would pass a leak
 * or fail a healthy run. The soak itself is not part of CI (`npm run soak`, docs/security.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checks,
  emptyBatch,
  errorsOf,
  fit,
  maxOf,
  median,
  minuteBuckets,
  minuteFigures,
  percentile,
  rssFloors,
  slope,
  type Window,
  type WindowBatch,
} from './soak-stats.js';

const batch = (latencies: number[], statuses: Record<string, number> = {}, failures = {}): WindowBatch => ({
  ...emptyBatch(),
  latencies_ms: latencies,
  statuses: Object.keys(statuses).length > 0 ? statuses : { 200: latencies.length },
  failures,
});

/** Ten-second windows over `minutes`, RSS from `rss(t_s)` and read latencies from `latency(t_s)`. */
function run(minutes: number, rss: (t: number) => number, latency: (t: number) => number[]): Window[] {
  return Array.from({ length: minutes * 6 }, (_, i) => {
    const t = (i + 1) * 10;
    const floor = rss(t);
    return {
      t_s: t,
      rss_mib: floor + 40,
      rss_min_mib: floor,
      rss_max_mib: floor + 120,
      server_cpu_ms: 1000,
      reads: batch(latency(t)),
      ingest: batch([50]),
    };
  });
}

const steady = (t: number) => Array.from({ length: 100 }, (_, i) => 5 + (i % 10) + (t % 3));

describe('percentile, median, slope', () => {
  test('nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.equal(percentile(values, 99), 99);
    assert.equal(percentile(values, 50), 50);
    assert.equal(percentile(values, 100), 100);
    assert.equal(percentile([], 99), 0);
  });

  test('the largest of more values than a spread call takes', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => i % 1000);
    many[123_456] = 5000;
    assert.equal(maxOf(many), 5000);
    assert.equal(maxOf([]), 0);
  });

  test('median of odd and even counts', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  test('least-squares slope recovers a line through noise-free points, 0 when flat', () => {
    assert.equal(slope([0, 1, 2, 3].map((x) => ({ x, y: 7 + 2.5 * x }))), 2.5);
    assert.equal(slope([0, 1, 2].map((x) => ({ x, y: 4 }))), 0);
    assert.equal(slope([{ x: 1, y: 1 }]), 0);
  });

  test('the standard error of the slope is 0 on a line and grows with the noise around it', () => {
    assert.equal(fit([0, 1, 2, 3].map((x) => ({ x, y: 2 * x }))).standardError, 0);
    const noisy = fit([0, 1, 2, 3, 4, 5].map((x) => ({ x, y: 2 * x + (x % 2 === 0 ? 3 : -3) })));
    assert.ok(noisy.standardError > 0.5);
    assert.ok(Math.abs(noisy.slope - 2) < 1);
  });
});

describe('errors', () => {
  test('every non-2xx and every unanswered request counts', () => {
    assert.equal(errorsOf(batch([1, 2, 3], { 200: 1, 201: 1, 503: 1 }, { ECONNRESET: 2 })), 3);
  });
});

describe('minute buckets', () => {
  test('six windows a minute; a trailing part-minute under 30 s joins the minute before', () => {
    const windows = run(2, () => 100, steady);
    windows.push({ ...windows.at(-1)!, t_s: 125 });
    const buckets = minuteBuckets(windows);
    assert.deepEqual(
      buckets.map((b) => b.length),
      [6, 7],
    );
    const longer = [...run(2, () => 100, steady), { ...windows.at(-1)!, t_s: 160 }];
    assert.deepEqual(
      minuteBuckets(longer).map((b) => b.length),
      [6, 6, 1],
    );
  });

  test('per-minute figures merge the windows: counts add up, CPU is summed', () => {
    const minutes = minuteFigures(run(3, () => 100, steady));
    assert.equal(minutes.length, 3);
    assert.equal(minutes[0]!.reads, 600);
    assert.equal(minutes[0]!.pushes, 6);
    assert.equal(minutes[0]!.server_cpu_s, 6);
    assert.equal(minutes[0]!.read_errors, 0);
  });
});

describe('checks', () => {
  const verdict = (windows: Window[]) => checks(windows, minuteFigures(windows));

  test('a flat RSS with GC noise and a steady p99 pass', () => {
    const result = verdict(run(10, (t) => 300 + ((t / 10) % 3) * 4, steady));
    assert.equal(result.memory.pass, true);
    assert.equal(result.p99.pass, true);
    assert.equal(result.errors.pass, true);
  });

  test('a leak of 2% of the RSS per minute in the second half fails the memory check', () => {
    const result = verdict(run(10, (t) => (t <= 300 ? 300 : 300 + (6 * (t - 300)) / 60), steady));
    assert.equal(result.memory.pass, false);
    // The floor trails the leak by up to the two-minute span, so part of the half is still flat.
    assert.ok(result.memory.slope_mib_per_min > result.memory.limit_mib_per_min);
    assert.ok(result.memory.slope_mib_per_min <= 6);
  });

  test('a sawtooth of the collector (heap climbing for 80 s, then collected) is not a trend', () => {
    const result = verdict(run(10, (t) => 400 + ((t % 80) / 80) * 1500, steady));
    assert.equal(result.memory.pass, true);
    assert.equal(result.memory.mean_mib, 400);
  });

  test('the floor is the lowest sample of the trailing two minutes', () => {
    const floors = rssFloors([
      { t_s: 60, rss_min_mib: 500 },
      { t_s: 120, rss_min_mib: 300 },
      { t_s: 180, rss_min_mib: 900 },
      { t_s: 240, rss_min_mib: 800 },
    ]);
    assert.deepEqual(
      floors.map((f) => f.mib),
      [500, 300, 300, 800],
    );
  });

  test('warm-up growth in the first half alone does not fail it', () => {
    const result = verdict(run(10, (t) => Math.min(300, 100 + t), steady));
    assert.equal(result.memory.pass, true);
  });

  test('a late minute with p99 over twice the median minute fails the p99 check', () => {
    const spike = (t: number) => (t > 480 && t <= 540 ? steady(t).map((v) => v * 3) : steady(t));
    const result = verdict(run(10, () => 300, spike));
    assert.equal(result.p99.pass, false);
    const early = (t: number) => (t <= 60 ? steady(t).map((v) => v * 3) : steady(t));
    assert.equal(verdict(run(10, () => 300, early)).p99.pass, true);
  });

  test('one error anywhere fails the run', () => {
    const windows = run(4, () => 300, steady);
    windows[5] = { ...windows[5]!, ingest: batch([], {}, { 'runtime: ECONNRESET': 1 }) };
    const result = verdict(windows);
    assert.deepEqual(result.errors, { reads: 0, ingest: 1, pass: false });
  });
});
