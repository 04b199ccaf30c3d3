/**
 * Runtime ingestion rate through the real endpoint (issue 6): a synthetic stream of 100,000
 * events (20 workloads, exec/file/connect/HTTP over 8 hours, most of it after the baseline; the
 * generator of src/engines/runtime/sample/bench.ts) pushed with `app.inject` to
 * POST /accounts/{account_id}/clusters/{cluster_id}/ingest/runtime: authentication, body decoding,
 * parsing, the engine and every write, in one transaction per push.
 *
 * Run on PGlite: `npx tsx bench/runtime-ingest.ts [events]`; on PostgreSQL, with DATABASE_URL set
 * (a throwaway database is created on that server and dropped). Prints one JSON line per scenario:
 * one push of the whole stream, then the same stream in pushes of 10,000 events (only those with
 * BENCH_SCENARIO=pushes). Not a test.
 */
import { gzipSync } from 'node:zlib';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { syntheticStream } from '../src/engines/runtime/sample/bench.js';
import { createTenancyService } from '../src/modules/tenancy/service.js';
import { createTestDatabase } from '../test/support/database.js';
import { backendCpu } from './backend-cpu.js';

const PEPPER = 'bench-pepper-bench-pepper-bench-pepper-00';
const total = Number(process.argv[2] ?? 100_000);
const lines = syntheticStream(total).map((event) => JSON.stringify(event));

const database = await createTestDatabase();
const app = await buildApp({
  config: testConfig({ RATE_LIMIT_PER_MINUTE: 0, DATABASE_URL: database.url }),
  db: database.db,
  pepper: PEPPER,
});
await app.ready();
const dbMeter = await backendCpu(database.ownerUrl);
// The tenant is made through the owner's connection, which row-level security does not bind (the
// app under test uses database.db, as the server uses its own role).
const tenancy = createTenancyService({ db: database.owner, pepper: PEPPER });

async function call(
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  token: string | null,
  payload: unknown,
  headers = {},
) {
  const res = await app.inject({
    method,
    url,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    payload: payload as string,
  });
  if (res.statusCode !== 200 && res.statusCode !== 201)
    throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A fresh tenant and cluster, so each scenario starts from empty states. */
async function freshCluster(name: string) {
  const boot = await tenancy.bootstrap({
    tenant: `bench-${name}-${Date.now()}`,
    account: 'bench',
    user: 'bench',
  });
  const { token } = await call('POST', '/authentication/authenticate', null, {
    access_key_id: boot.access_key_id,
    secret_key: boot.secret_key,
  });
  const account = `/accounts/${boot.account_id}`;
  await call('PUT', `${account}/runtime_settings`, token, {
    learning_window_seconds: 3600,
    learning_window_max_events: null,
    trusted_ip_prefixes: [{ cidr: '10.96.0.0/12', name: 'services' }],
  });
  const cluster = await call('POST', `${account}/clusters`, token, { name: 'bench' });
  return { token, url: `${account}/clusters/${cluster.id}/ingest/runtime` };
}

async function scenario(name: string, pushes: Buffer[], gzip: boolean) {
  const target = await freshCluster(name);
  const bodies = gzip ? pushes.map((body) => gzipSync(body)) : pushes;
  const cpu = process.cpuUsage();
  const dbBefore = await dbMeter.read();
  const started = process.hrtime.bigint();
  let last: Record<string, number> = {};
  for (const body of bodies) {
    last = await call('POST', target.url, target.token, body, {
      'content-type': 'application/x-ndjson',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
  }
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const dbAfter = await dbMeter.read();
  const dbSeconds = dbBefore === null || dbAfter === null ? null : (dbAfter - dbBefore) / 1000;
  console.log(
    JSON.stringify({
      scenario: name,
      engine: database.db.engine,
      node: process.version,
      events: total,
      pushes: bodies.length,
      mib_on_wire: Math.round(bodies.reduce((sum, b) => sum + b.length, 0) / 1024 / 102.4) / 10,
      wall_s: Math.round(wall * 100) / 100,
      events_per_s_wall: Math.round(total / wall),
      process_cpu_s: Math.round(cpuSeconds * 100) / 100,
      // Node (the app and the in-process client) per 1,000 events
      process_cpu_ms_per_1000: Math.round((cpuSeconds / total) * 1e6),
      // PostgreSQL's backends of the benchmark database, when on this machine
      db_cpu_s: dbSeconds === null ? null : Math.round(dbSeconds * 100) / 100,
      last_push: {
        insights: last.insights,
        http_observations: last.http_observations,
        workloads: last.workload_containers,
      },
    }),
  );
}

const whole = Buffer.from(`${lines.join('\n')}\n`);
const chunks: Buffer[] = [];
for (let i = 0; i < lines.length; i += 10_000)
  chunks.push(Buffer.from(`${lines.slice(i, i + 10_000).join('\n')}\n`));

// BENCH_SCENARIO=pushes runs only the pushes of 10,000 (the suite's shape), e.g. under a profiler.
const only = process.env.BENCH_SCENARIO;
try {
  if (only !== 'pushes') {
    await scenario('one push', [whole], false);
    await scenario('one push, gzip', [whole], true);
  }
  await scenario('pushes of 10,000', chunks, false);
} finally {
  await dbMeter.close();
  await app.close();
  await database.close();
}
