/**
 * Prometheus metrics: request counts and latency histograms by route pattern (never the raw URL,
 * which would explode cardinality with ids) and status.
 *
 * The two request metrics are counted in plain numbers per (method, route, status) and handed to
 * prom-client's registry as metric objects of the shape its own counters and histograms give it,
 * so /metrics reads exactly as it did with prom-client's Counter and Histogram (a test compares
 * the two). Those classes check and hash every label set on every observation: a few
 * microseconds per request, a few percent of a small authenticated request's CPU
 * (docs/performance.md, "Fix 5", "Third pass"). Process metrics stay prom-client's own.
 */
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, type Metric, Registry } from 'prom-client';

const REQUESTS = {
  name: 'posture_http_requests_total',
  help: 'HTTP requests by route and status',
};
const DURATION = {
  name: 'posture_http_request_duration_seconds',
  help: 'HTTP request latency by route and status',
};
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * For the text a scrape reads (`getForPromString`, as prom-client's own Histogram gives it): a
 * value's `labels` are formatted and escaped on every scrape, its `sharedLabels` once per object
 * (the registry keeps their text in a WeakMap). Each series' labels are one object for its life,
 * so a scrape formats only these constant `le` labels. With every label in `labels`, a scrape of
 * 1,000 series took 60 to 100 ms of the event loop (docs/performance.md, "Fix 74").
 */
const NO_LABELS = {};
const BUCKET_LABELS = DURATION_BUCKETS.map((le) => ({ le }));
const INF_LABELS = { le: '+Inf' };
const BUCKET = `${DURATION.name}_bucket`;
const SUM = `${DURATION.name}_sum`;
const COUNT = `${DURATION.name}_count`;

/** A value as the scrape reads it; the JSON has the two label sets in one (`splayed`). */
interface ScrapeValue {
  labels: Record<string, string | number>;
  sharedLabels: RequestLabels;
  value: number;
  metricName?: string;
}

function splayed({ labels, sharedLabels, ...rest }: ScrapeValue) {
  return { ...rest, labels: { ...labels, ...sharedLabels } };
}

interface RequestLabels {
  method: string;
  route: string;
  status_code: string;
}

/** One label set's requests: how many, their total seconds, and how many fell in each bucket. */
interface Series {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** per upper bound of DURATION_BUCKETS, not cumulative; beyond the last bound only `count` */
  inBucket: number[];
}

export interface RequestMetrics {
  record(method: string, route: string, statusCode: number, seconds: number): void;
}

/**
 * The request counter and histogram, registered on `registry` under their prom-client names.
 * Observations with the same labels and values read out as prom-client's would, value for value
 * and in the same order (first seen, first listed).
 */
export function registerRequestMetrics(registry: Registry): RequestMetrics {
  let series = new Map<string, Series>();
  const reset = () => {
    series = new Map();
  };

  const counterValues = (): ScrapeValue[] =>
    [...series.values()].map((s) => ({ labels: NO_LABELS, sharedLabels: s.labels, value: s.count }));

  const histogramValues = (): ScrapeValue[] => {
    const values: ScrapeValue[] = [];
    for (const s of series.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((_, i) => {
        cumulative += s.inBucket[i] ?? 0;
        values.push({
          labels: BUCKET_LABELS[i]!,
          sharedLabels: s.labels,
          value: cumulative,
          metricName: BUCKET,
        });
      });
      values.push(
        { labels: INF_LABELS, sharedLabels: s.labels, value: s.count, metricName: BUCKET },
        { labels: NO_LABELS, sharedLabels: s.labels, value: s.sum, metricName: SUM },
        { labels: NO_LABELS, sharedLabels: s.labels, value: s.count, metricName: COUNT },
      );
    }
    return values;
  };

  /** A metric as the registry reads it: `get` for its JSON, `getForPromString` for the scrape's text. */
  const metric = (head: typeof REQUESTS, type: string, values: () => ScrapeValue[]) => ({
    ...head,
    type,
    aggregator: 'sum',
    async get() {
      return { ...head, type, aggregator: 'sum', values: values().map(splayed) };
    },
    async getForPromString() {
      return { ...head, type, aggregator: 'sum', values: values() };
    },
    reset,
  });
  const counter = metric(REQUESTS, 'counter', counterValues);
  const histogram = metric(DURATION, 'histogram', histogramValues);

  registry.registerMetric(counter as unknown as Metric);
  registry.registerMetric(histogram as unknown as Metric);

  return {
    record(method, route, statusCode, seconds) {
      const key = `${method} ${statusCode} ${route}`;
      let s = series.get(key);
      if (!s) {
        s = {
          labels: { method, route, status_code: String(statusCode) },
          count: 0,
          sum: 0,
          inBucket: DURATION_BUCKETS.map(() => 0),
        };
        series.set(key, s);
      }
      s.count += 1;
      s.sum += seconds;
      const bucket = DURATION_BUCKETS.findIndex((le) => seconds <= le);
      if (bucket >= 0) s.inBucket[bucket] = (s.inBucket[bucket] ?? 0) + 1;
    },
  };
}

export function createMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'posture_' });
  const requests = registerRequestMetrics(registry);
  // A callback hook: an async one costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    requests.record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  return registry;
}
