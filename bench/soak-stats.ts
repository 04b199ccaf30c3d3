/**
 * The soak's arithmetic, kept pure so it can be tested: percentiles, the least-squares slope of
 * the server's RSS, minute buckets of the 10-second windows, and the two checks of issue 10's
 * suite 5 (no memory growth trend, p99 stable) plus "no errors".
 */

/** What one child (reads or ingestion) saw during one window. */
export interface WindowBatch {
  latencies_ms: number[];
  /** responses by HTTP status */
  statuses: Record<string, number>;
  /** requests that got no answer, by reason (socket errors, timeouts) */
  failures: Record<string, number>;
  /** latencies by kind of request, where the child names them (the ingestion's pushes) */
  by_kind: Record<string, number[]>;
}

/** One 10-second sample of the run. */
export interface Window {
  /** seconds since the load started, at the end of the window */
  t_s: number;
  /** the server's RSS at the end of the window */
  rss_mib: number;
  /** lowest and highest of the RSS samples taken every second during the window */
  rss_min_mib: number;
  rss_max_mib: number;
  /** CPU time (user + system) the server spent during the window */
  server_cpu_ms: number;
  reads: WindowBatch;
  ingest: WindowBatch;
}

/** Adds values to the group `key` of `groups`, creating it on first use. */
export function appendTo<T>(groups: Record<string, T[]>, key: string, ...values: T[]): void {
  const group = groups[key] ?? [];
  group.push(...values);
  groups[key] = group;
}

export function emptyBatch(): WindowBatch {
  return { latencies_ms: [], statuses: {}, failures: {}, by_kind: {} };
}

/** Nearest-rank percentile (0 for no values). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Largest value, 0 for none (a loop: spreading 100k latencies into Math.max overflows the stack). */
export function maxOf(values: readonly number[]): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Least-squares slope of y over x (0 with fewer than two distinct x). */
export function slope(points: readonly { x: number; y: number }[]): number {
  return fit(points).slope;
}

/** Least-squares line through the points, and the standard error of its slope. */
export function fit(points: readonly { x: number; y: number }[]): { slope: number; standardError: number } {
  const n = points.length;
  if (n < 2) return { slope: 0, standardError: 0 };
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  if (den === 0) return { slope: 0, standardError: 0 };
  const b = num / den;
  const residuals = points.reduce((s, p) => s + (p.y - my - b * (p.x - mx)) ** 2, 0);
  return { slope: b, standardError: n > 2 ? Math.sqrt(residuals / (n - 2) / den) : 0 };
}

/** Answers that count as errors: every non-2xx status and every request without an answer. */
export function errorsOf(batch: WindowBatch): number {
  let errors = 0;
  for (const [status, count] of Object.entries(batch.statuses)) if (!status.startsWith('2')) errors += count;
  for (const count of Object.values(batch.failures)) errors += count;
  return errors;
}

export function merge(batches: readonly WindowBatch[]): WindowBatch {
  const out = emptyBatch();
  for (const batch of batches) {
    for (const value of batch.latencies_ms) out.latencies_ms.push(value);
    for (const [key, count] of Object.entries(batch.statuses))
      out.statuses[key] = (out.statuses[key] ?? 0) + count;
    for (const [key, count] of Object.entries(batch.failures))
      out.failures[key] = (out.failures[key] ?? 0) + count;
    for (const [kind, values] of Object.entries(batch.by_kind)) appendTo(out.by_kind, kind, ...values);
  }
  return out;
}

export interface MinuteFigures {
  minute: number;
  reads: number;
  read_errors: number;
  read_p50_ms: number;
  read_p99_ms: number;
  read_max_ms: number;
  pushes: number;
  push_errors: number;
  push_p50_ms: number;
  push_max_ms: number;
  rss_mean_mib: number;
  /** the lowest RSS seen in the minute: the floor the garbage collector brings it back to */
  rss_min_mib: number;
  rss_max_mib: number;
  /** server CPU seconds spent in the minute (user + system) */
  server_cpu_s: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * Groups the windows by minute of load. A trailing part-minute shorter than 30 s joins the minute
 * before it: a p99 of a few seconds of requests is not comparable with a minute's.
 */
export function minuteBuckets(windows: readonly Window[]): Window[][] {
  const buckets: Record<string, Window[]> = {};
  for (const window of windows)
    appendTo(buckets, String(Math.max(0, Math.ceil(window.t_s / 60) - 1)), window);
  const dense = Object.keys(buckets)
    .map(Number)
    .sort((a, b) => a - b)
    .map((minute) => buckets[minute]!);
  const last = dense.at(-1);
  if (dense.length > 1 && last) {
    const span = last.at(-1)!.t_s - dense.at(-2)!.at(-1)!.t_s;
    if (span < 30) dense.splice(-2, 2, [...dense.at(-2)!, ...last]);
  }
  return dense;
}

export function minuteFigures(windows: readonly Window[]): MinuteFigures[] {
  return minuteBuckets(windows).map((bucket, minute) => {
    const reads = merge(bucket.map((w) => w.reads));
    const ingest = merge(bucket.map((w) => w.ingest));
    const rss = bucket.map((w) => w.rss_mib);
    const cpu = bucket.reduce((s, w) => s + w.server_cpu_ms, 0);
    return {
      minute: minute + 1,
      reads: reads.latencies_ms.length + Object.values(reads.failures).reduce((s, n) => s + n, 0),
      read_errors: errorsOf(reads),
      read_p50_ms: round1(percentile(reads.latencies_ms, 50)),
      read_p99_ms: round1(percentile(reads.latencies_ms, 99)),
      read_max_ms: round1(maxOf(reads.latencies_ms)),
      pushes: ingest.latencies_ms.length + Object.values(ingest.failures).reduce((s, n) => s + n, 0),
      push_errors: errorsOf(ingest),
      push_p50_ms: round1(percentile(ingest.latencies_ms, 50)),
      push_max_ms: round1(maxOf(ingest.latencies_ms)),
      rss_mean_mib: round1(rss.reduce((s, n) => s + n, 0) / rss.length),
      rss_min_mib: round1(Math.min(...bucket.map((w) => w.rss_min_mib))),
      rss_max_mib: round1(Math.max(...bucket.map((w) => w.rss_max_mib))),
      server_cpu_s: round1(cpu / 1000),
    };
  });
}

/**
 * The memory check: the server's RSS floor, the lowest once-a-second sample of the trailing
 * FLOOR_SPAN_S seconds, is fitted with a least-squares line over the second half of the load (the
 * first half holds the warm-up: JIT, caches, pools and V8's heap growing to its working size). A
 * leak raises the floor steadily; the peaks are garbage waiting for the collector, which at medium
 * lets the heap climb by 1.5 GiB over a minute or so before a major collection brings it back, so
 * a shorter span would fit the sawtooth instead of the floor (runs under 8 minutes use a quarter
 * of their length). The threshold is 1% of the mean
 * floor per minute (docs/security.md, suite 5: why 1%).
 */
export const FLOOR_SPAN_S = 120;
export const MEMORY_SLOPE_LIMIT_FRACTION = 0.01;
/** The p99 check: the worst minute of the second half against the run's typical minute. */
export const P99_LIMIT_FACTOR = 2;

export interface Checks {
  errors: { reads: number; ingest: number; pass: boolean };
  memory: {
    slope_mib_per_min: number;
    /** standard error of the slope: how far noise alone moves it */
    slope_standard_error: number;
    /** the floor of a window is the lowest RSS sample of this many trailing seconds */
    floor_span_s: number;
    /** mean RSS floor of the second half */
    mean_mib: number;
    limit_mib_per_min: number;
    samples: number;
    /**
     * false when the slope's standard error exceeds the limit: noise alone could hide a leak of
     * that size, so a pass says only that no trend was seen (a longer run narrows it)
     */
    conclusive: boolean;
    pass: boolean;
  };
  p99: { median_ms: number; second_half_max_ms: number; limit_ms: number; pass: boolean };
}

/** What the memory check reads of a window (all a result file keeps of it is enough). */
export type RssSample = Pick<Window, 't_s' | 'rss_min_mib'>;

/** Each window's RSS floor: the lowest sample of the windows that ended in the trailing span. */
export function rssFloors(
  windows: readonly RssSample[],
  spanS = FLOOR_SPAN_S,
): { t_s: number; mib: number }[] {
  return windows.map((w) => ({
    t_s: w.t_s,
    mib: Math.min(
      ...windows.filter((o) => o.t_s <= w.t_s && o.t_s > w.t_s - spanS).map((o) => o.rss_min_mib),
    ),
  }));
}

export function checks(windows: readonly RssSample[], minutes: readonly MinuteFigures[]): Checks {
  const end = windows.at(-1)?.t_s ?? 0;
  // A short run (the tooling's own check) gets a span in proportion, or its half would be one floor.
  const span = Math.min(FLOOR_SPAN_S, end / 4);
  const secondHalf = rssFloors(windows, span).filter((w) => w.t_s > end / 2);
  const meanRss = secondHalf.reduce((s, w) => s + w.mib, 0) / Math.max(1, secondHalf.length);
  const trend = fit(secondHalf.map((w) => ({ x: w.t_s / 60, y: w.mib })));
  const growth = trend.slope;
  const limitMib = meanRss * MEMORY_SLOPE_LIMIT_FRACTION;
  const p99s = minutes.map((m) => m.read_p99_ms);
  const typical = median(p99s);
  const worstLate = Math.max(0, ...p99s.slice(Math.floor(p99s.length / 2)));
  const readErrors = minutes.reduce((s, m) => s + m.read_errors, 0);
  const pushErrors = minutes.reduce((s, m) => s + m.push_errors, 0);
  return {
    errors: { reads: readErrors, ingest: pushErrors, pass: readErrors + pushErrors === 0 },
    memory: {
      slope_mib_per_min: Math.round(growth * 100) / 100,
      slope_standard_error: Math.round(trend.standardError * 100) / 100,
      floor_span_s: span,
      mean_mib: round1(meanRss),
      limit_mib_per_min: Math.round(limitMib * 100) / 100,
      samples: secondHalf.length,
      conclusive: trend.standardError < limitMib,
      pass: secondHalf.length >= 2 && growth < limitMib,
    },
    p99: {
      median_ms: round1(typical),
      second_half_max_ms: round1(worstLate),
      limit_ms: round1(P99_LIMIT_FACTOR * typical),
      pass: p99s.length > 0 && worstLate <= P99_LIMIT_FACTOR * typical,
    },
  };
}
