/**
 * What a Prometheus scrape of /metrics costs the event loop, by how many request series
 * (method, route, status) the server has seen: a registry as createMetrics makes it (process
 * metrics and the two request metrics, src/modules/operations/metrics.ts), its series recorded,
 * then `registry.metrics()` timed. Prints one JSON line per series count. Not a test.
 *
 *   npx tsx bench/metrics-scrape.ts [rounds]
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerRequestMetrics } from '../src/modules/operations/metrics.js';

const ROUNDS = Number(process.argv[2] ?? 10);
/** The statuses a route answers with in practice, most common first. */
const STATUSES = [200, 404, 400, 401, 403, 201, 204, 409, 413, 415];

for (const seriesCount of [100, 300, 1000]) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'posture_' });
  const requests = registerRequestMetrics(registry);
  for (let n = 0; n < seriesCount; n++) {
    const route = `/accounts/:account_id/route_${n % 100}`;
    requests.record('GET', route, STATUSES[Math.floor(n / 100) % STATUSES.length]!, 0.003);
  }
  await registry.metrics(); // the first scrape compiles and warms what the others reuse
  const ms: number[] = [];
  let chars = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    chars = (await registry.metrics()).length;
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)]!;
  console.log(JSON.stringify({ series: seriesCount, scrape_ms_median: Math.round(median * 10) / 10, chars }));
}
