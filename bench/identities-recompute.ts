/**
 * How long recomputing identities takes (issue 5) for a cluster of 2,000 ServiceAccounts and
 * 5,000 bindings (the synthetic cluster of src/engines/rbac/fixtures/synthetic.ts: 50 namespaces,
 * roles, Deployments, ReplicaSets and pods), through the real ingestion endpoint
 * (POST /accounts/{account_id}/clusters/{cluster_id}/ingest/kubernetes with `app.inject`).
 *
 * Scenarios, each printed as one JSON line:
 * - `first_push`: the whole cluster in one push: storing every object, then the first recompute
 *   (every identity, risk, facet and RBAC object written).
 * - `recompute_from_empty`: the recompute step alone, in its own transaction, with every derived
 *   table emptied first: the first recompute's share of `first_push`.
 * - `recompute_unchanged`: the recompute step alone, in its own transaction, on the stored
 *   cluster, RBAC objects included (what a push that changes one role costs on top of storing it);
 *   `recompute_unchanged_workloads_only` the same when only pods or workloads changed.
 * - `push_one_binding`: a push of one new binding: store + recompute + write the changes.
 * - `push_one_configmap`: a push of one ConfigMap (no recompute), the baseline to subtract.
 *
 * Run on PGlite: `npx tsx bench/identities-recompute.ts [serviceAccounts] [bindings]`; on
 * PostgreSQL with DATABASE_URL set (a throwaway database is created on that server and dropped).
 * Not a test: the figures are recorded in docs/identities-api.md.
 */
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { roleBinding, saSubject } from '../src/engines/rbac/fixtures/builders.js';
import { syntheticCluster } from '../src/engines/rbac/fixtures/synthetic.js';
import { recomputeClusterIdentities } from '../src/modules/identities/recompute.js';
import { createTenancyService } from '../src/modules/tenancy/service.js';
import { createTestDatabase } from '../test/support/database.js';

const PEPPER = 'bench-pepper-bench-pepper-bench-pepper-00';
const serviceAccounts = Number(process.argv[2] ?? 2000);
const bindings = Number(process.argv[3] ?? 5000);
const objects = syntheticCluster({ serviceAccounts, bindings, namespaces: 50 });

const database = await createTestDatabase();
const app = await buildApp({
  config: testConfig({ RATE_LIMIT_PER_MINUTE: 0, DATABASE_URL: database.url }),
  db: database.db,
  pepper: PEPPER,
});
await app.ready();
const tenancy = createTenancyService({ db: database.db, pepper: PEPPER });
const engine = database.url ? 'postgresql' : 'pglite';

async function call(method: 'POST', url: string, token: string | null, payload: unknown) {
  const res = await app.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  if (res.statusCode !== 200 && res.statusCode !== 201)
    throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

const boot = await tenancy.bootstrap({ tenant: `bench-${Date.now()}`, account: 'bench', user: 'bench' });
const { token } = await call('POST', '/authentication/authenticate', null, {
  access_key_id: boot.access_key_id,
  secret_key: boot.secret_key,
});
const cluster = await call('POST', `/accounts/${boot.account_id}/clusters`, token, { name: 'bench' });
const ingest = `/accounts/${boot.account_id}/clusters/${cluster.id}/ingest/kubernetes`;
const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', metadata: {}, items });

/** Wall time, and this process's CPU time (which includes PGlite, not a PostgreSQL server). */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; cpu_ms: number; result: T }> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await work();
  const used = process.cpuUsage(cpu);
  return {
    ms: Math.round(Number(process.hrtime.bigint() - start) / 1e6),
    cpu_ms: Math.round((used.user + used.system) / 1000),
    result,
  };
}

const print = (scenario: string, extra: Record<string, unknown>) =>
  console.log(
    JSON.stringify({ engine, node: process.version, scenario, serviceAccounts, bindings, ...extra }),
  );

const first = await timed(() => call('POST', ingest, token, list(objects)));
const counts = async () => {
  const q = async (sql: string) => Number((await database.db.query<{ n: number }>(sql)).rows[0]?.n ?? 0);
  return {
    identities: await q('select count(*) as n from identities'),
    risks: await q('select count(*) as n from identity_risks'),
    facets: await q('select count(*) as n from identity_facets'),
    rbac_objects: await q('select count(*) as n from rbac_objects'),
  };
};
print('first_push', { objects: objects.length, ms: first.ms, cpu_ms: first.cpu_ms, ...(await counts()) });

const ref = { accountId: boot.account_id, clusterId: cluster.id, clusterName: 'bench' };
const DERIVED = [
  'identities',
  'identity_risks',
  'identity_facets',
  'identity_filter_values',
  'identities_reports',
  'rbac_objects',
];
await database.db.exec(`truncate ${DERIVED.join(', ')}`);
const fromEmpty = await timed(() =>
  database.db.transaction((tx) => recomputeClusterIdentities(tx, ref, new Date())),
);
print('recompute_from_empty', { ms: fromEmpty.ms, cpu_ms: fromEmpty.cpu_ms });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const rbacChanged of [true, false]) {
  const runs: { ms: number; cpu_ms: number }[] = [];
  for (let i = 0; i < 5; i++) {
    runs.push(
      await timed(() =>
        database.db.transaction((tx) => recomputeClusterIdentities(tx, ref, new Date(), { rbacChanged })),
      ),
    );
  }
  print(rbacChanged ? 'recompute_unchanged' : 'recompute_unchanged_workloads_only', {
    runs_ms: runs.map((run) => run.ms),
    median_ms: median(runs.map((run) => run.ms)),
    median_cpu_ms: median(runs.map((run) => run.cpu_ms)),
  });
}

const binding = roleBinding(
  'ns-0',
  'bench-extra',
  'secret-reader',
  [saSubject('ns-0', 'sa-0')],
  'ClusterRole',
);
const one = await timed(() => call('POST', ingest, token, list([binding])));
print('push_one_binding', { ms: one.ms, cpu_ms: one.cpu_ms });

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns-0', uid: 'cm-x', resourceVersion: '1' },
};
const baseline = await timed(() => call('POST', ingest, token, list([configMap])));
print('push_one_configmap', { ms: baseline.ms, cpu_ms: baseline.cpu_ms });

await app.close();
await database.close();
