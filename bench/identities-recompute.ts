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
 * - `push_binding_subject_added`, `push_running_pod_new_version`, `push_new_pod`,
 *   `push_shared_clusterrole_changed`: one changed object each (3 versions, median), through the
 *   delta recompute: what a small push into a big cluster costs; `delta_recompute_one_binding` the
 *   delta recompute step alone for one changed binding.
 *
 * Run on PGlite: `npx tsx bench/identities-recompute.ts [serviceAccounts] [bindings]`; on
 * PostgreSQL with DATABASE_URL set (a throwaway database is created on that server and dropped).
 * Not a test: the figures are recorded in docs/identities-api.md.
 */
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { roleBinding, saSubject } from '../src/engines/rbac/fixtures/builders.js';
import { syntheticCluster } from '../src/engines/rbac/fixtures/synthetic.js';
import { recomputeClusterIdentities, recomputeFromDelta } from '../src/modules/identities/recompute.js';
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
// Fixtures, counts and the direct recompute calls go through the owner's connection, which the
// row-level security policies do not bind (the app under test uses database.db).
const tenancy = createTenancyService({ db: database.owner, pepper: PEPPER });
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
  const q = async (sql: string) => Number((await database.owner.query<{ n: number }>(sql)).rows[0]?.n ?? 0);
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
  'identity_source_links',
  'identity_source_state',
];
await database.owner.exec(`truncate ${DERIVED.join(', ')}`);
const fromEmpty = await timed(() =>
  database.owner.transaction((tx) => recomputeClusterIdentities(tx, ref, new Date())),
);
print('recompute_from_empty', { ms: fromEmpty.ms, cpu_ms: fromEmpty.cpu_ms });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const rbacChanged of [true, false]) {
  const runs: { ms: number; cpu_ms: number }[] = [];
  for (let i = 0; i < 5; i++) {
    runs.push(
      await timed(() =>
        database.owner.transaction((tx) => recomputeClusterIdentities(tx, ref, new Date(), { rbacChanged })),
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

/**
 * Small pushes into the stored cluster, through the delta recompute (docs/performance.md, "Identities
 * recompute from the push's delta"). Each object is a new version of one already stored.
 */
type Raw = { kind: string; metadata: Record<string, unknown> } & Record<string, unknown>;
let version = 10_000_000;
const newVersion = (object: Raw, change: (copy: Raw) => void): Raw => {
  const copy = structuredClone(object);
  copy.metadata.resourceVersion = String(++version);
  change(copy);
  return copy;
};
const stored = objects as Raw[];
const firstOf = <K extends string>(kind: K, test: (o: Raw) => boolean = () => true) =>
  stored.find((o) => o.kind === kind && test(o))!;
const smallPushes: [string, Raw][] = [
  [
    'push_binding_subject_added',
    newVersion(firstOf('RoleBinding'), (b) => (b.subjects as unknown[]).push(saSubject('ns-1', 'sa-1'))),
  ],
  [
    'push_running_pod_new_version',
    newVersion(firstOf('Pod'), (p) => {
      p.status = { ...(p.status as object), startTime: '2026-02-01T00:00:00Z' };
    }),
  ],
  [
    'push_new_pod',
    newVersion(firstOf('Pod'), (p) => {
      p.metadata.uid = 'bench-new-pod';
      p.metadata.name = 'bench-new-pod';
      p.metadata.ownerReferences = [];
      p.spec = { ...(p.spec as object), serviceAccountName: 'sa-2' };
    }),
  ],
  [
    'push_shared_clusterrole_changed',
    newVersion(
      firstOf('ClusterRole', (o) => o.metadata.name === 'secret-reader'),
      (r) => {
        (r.rules as unknown[]).push({ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] });
      },
    ),
  ],
];
for (const [scenario, object] of smallPushes) {
  const runs: { ms: number; cpu_ms: number }[] = [];
  let current = object;
  for (let i = 0; i < 3; i++) {
    runs.push(await timed(() => call('POST', ingest, token, list([current]))));
    current = newVersion(current, () => {});
  }
  print(scenario, {
    runs_ms: runs.map((run) => run.ms),
    median_ms: median(runs.map((run) => run.ms)),
    median_cpu_ms: median(runs.map((run) => run.cpu_ms)),
  });
}

// The delta recompute step alone for one changed binding (no storing, no other ingestion hook).
{
  const binding = firstOf('RoleBinding');
  const changed = [{ uid: binding.metadata.uid as string, kind: 'RoleBinding' }];
  const runs: { ms: number; cpu_ms: number }[] = [];
  for (let i = 0; i < 5; i++) {
    runs.push(
      await timed(() => database.owner.transaction((tx) => recomputeFromDelta(tx, ref, changed, new Date()))),
    );
  }
  print('delta_recompute_one_binding', {
    runs_ms: runs.map((run) => run.ms),
    median_ms: median(runs.map((run) => run.ms)),
    median_cpu_ms: median(runs.map((run) => run.cpu_ms)),
  });
}

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns-0', uid: 'cm-x', resourceVersion: '1' },
};
const baseline = await timed(() => call('POST', ingest, token, list([configMap])));
print('push_one_configmap', { ms: baseline.ms, cpu_ms: baseline.cpu_ms });

await app.close();
await database.close();
