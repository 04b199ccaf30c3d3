/**
 * The request metrics read out exactly as prom-client's own Counter and Histogram did for the
 * same observations: /metrics is the operators' contract (docs/configuration.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, registerRequestMetrics } from './metrics.js';

/** The metrics as they were: prom-client's classes, labelled as the old onResponse hook did. */
function promClientMetrics(registry: Registry) {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'posture_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'posture_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return {
    record(method: string, route: string, statusCode: number, seconds: number) {
      const labels = { method, route, status_code: String(statusCode) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

const OBSERVATIONS: [string, string, number, number][] = [
  ['GET', '/accounts/:account_id', 200, 0.0004],
  ['GET', '/accounts/:account_id', 200, 0.001], // on a bound: counted in it, as prom-client does
  ['POST', '/authentication/authenticate', 401, 0.0123],
  ['GET', 'unmatched', 404, 0.0002],
  ['GET', '/accounts/:account_id', 404, 0.07],
  ['GET', '/accounts/:account_id', 200, 12.5], // beyond the last bound: +Inf only
  ['GET', '/a "quoted" \\ route\n', 200, 0.3],
  ['POST', '/authentication/authenticate', 401, 0.0031],
];

describe('request metrics', () => {
  test('read out as prom-client wrote them: text and JSON, value for value, in order', async () => {
    const before = new Registry();
    const after = new Registry();
    const old = promClientMetrics(before);
    const kept = registerRequestMetrics(after);
    assert.equal(await after.metrics(), await before.metrics(), 'no observation yet');
    for (const [method, route, status, seconds] of OBSERVATIONS) {
      old.record(method, route, status, seconds);
      kept.record(method, route, status, seconds);
    }
    assert.equal(await after.metrics(), await before.metrics());
    const json = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map((metric) => ({
        ...metric,
        values: metric.values.map(({ labels, value, metricName }: Record<string, unknown>) => ({
          labels,
          value,
          metricName,
        })),
      }));
    assert.deepEqual(await json(after), await json(before));
  });

  test('counts each label set apart, and resets with the registry', async () => {
    const registry = new Registry();
    const kept = registerRequestMetrics(registry);
    kept.record('GET', '/x', 200, 0.002);
    kept.record('GET', '/x', 200, 0.002);
    kept.record('GET', '/x', 500, 0.002);
    const text = await registry.metrics();
    assert.match(text, /^posture_http_requests_total\{method="GET",route="\/x",status_code="200"\} 2$/m);
    assert.match(text, /^posture_http_requests_total\{method="GET",route="\/x",status_code="500"\} 1$/m);
    registry.resetMetrics();
    assert.doesNotMatch(await registry.metrics(), /route="\/x"/);
  });
});
