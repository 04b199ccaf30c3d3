/**
 * What the soak prints and keeps: run totals, the per-minute table and the verdict table
 * (Markdown, so they paste into docs/security.md as they are).
 */
import {
  type Checks,
  errorsOf,
  type MinuteFigures,
  maxOf,
  merge,
  percentile,
  type Window,
  type WindowBatch,
} from './soak-stats.js';

export interface Totals {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  failures: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

function totalsOf(batch: WindowBatch): Totals {
  const failed = Object.values(batch.failures).reduce((s, n) => s + n, 0);
  return {
    requests: batch.latencies_ms.length + failed,
    errors: errorsOf(batch),
    statuses: batch.statuses,
    failures: batch.failures,
    p50_ms: percentile(batch.latencies_ms, 50),
    p99_ms: percentile(batch.latencies_ms, 99),
    max_ms: maxOf(batch.latencies_ms),
  };
}

export function runTotals(windows: readonly Window[]) {
  const reads = merge(windows.map((w) => w.reads));
  const ingest = merge(windows.map((w) => w.ingest));
  const byKind = Object.fromEntries(
    Object.entries(ingest.by_kind).map(([kind, values]) => [
      kind,
      {
        pushes: values.length,
        p50_ms: percentile(values, 50),
        p99_ms: percentile(values, 99),
        max_ms: maxOf(values),
      },
    ]),
  );
  return { reads: totalsOf(reads), ingest: { ...totalsOf(ingest), by_kind: byKind } };
}

/** The windows without their raw latencies, for the result file. */
export function compactWindows(windows: readonly Window[]) {
  return windows.map((w) => ({
    t_s: w.t_s,
    rss_mib: w.rss_mib,
    rss_min_mib: w.rss_min_mib,
    rss_max_mib: w.rss_max_mib,
    server_cpu_ms: w.server_cpu_ms,
    reads: w.reads.latencies_ms.length,
    read_p99_ms: percentile(w.reads.latencies_ms, 99),
    read_errors: errorsOf(w.reads),
    pushes: w.ingest.latencies_ms.length,
    push_errors: errorsOf(w.ingest),
  }));
}

export function minuteTable(minutes: readonly MinuteFigures[]): string {
  const lines = [
    '| minute | reads | read errors | read p50 ms | read p99 ms | read max ms | pushes | push errors | push p50 ms | push max ms | RSS floor MiB | RSS mean MiB | RSS max MiB | server CPU s |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const m of minutes) {
    lines.push(
      `| ${m.minute} | ${m.reads} | ${m.read_errors} | ${m.read_p50_ms} | ${m.read_p99_ms} | ${m.read_max_ms} | ${m.pushes} | ${m.push_errors} | ${m.push_p50_ms} | ${m.push_max_ms} | ${m.rss_min_mib} | ${m.rss_mean_mib} | ${m.rss_max_mib} | ${m.server_cpu_s} |`,
    );
  }
  return lines.join('\n');
}

const verdict = (pass: boolean) => (pass ? 'pass' : '**FAIL**');

export function checksTable(checks: Checks): string {
  const { errors, memory, p99 } = checks;
  return [
    '| check | measured | limit | verdict |',
    '| --- | --- | --- | --- |',
    `| no errors (non-2xx, socket errors, timeouts) | reads ${errors.reads}, pushes ${errors.ingest} | 0 | ${verdict(errors.pass)} |`,
    `| memory trend: slope of the RSS floor (lowest sample of the last ${memory.floor_span_s} s) over the second half (${memory.samples} windows, mean ${memory.mean_mib} MiB) | ${memory.slope_mib_per_min} ± ${memory.slope_standard_error} MiB/min | < ${memory.limit_mib_per_min} MiB/min (1% of the mean) | ${verdict(memory.pass)}${memory.conclusive ? '' : ' (inconclusive: the noise exceeds the limit)'} |`,
    `| p99 stable: worst per-minute read p99 of the second half | ${p99.second_half_max_ms} ms | <= ${p99.limit_ms} ms (2x the median minute, ${p99.median_ms} ms) | ${verdict(p99.pass)} |`,
  ].join('\n');
}
