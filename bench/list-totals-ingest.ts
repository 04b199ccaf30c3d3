/**
 * What the list totals' triggers (migration 0022, docs/performance.md "Fix 12") cost Kubernetes
 * ingestion: PostgreSQL CPU per pushed object, with the triggers enabled and disabled in
 * alternating rounds on the same database. Each round pushes a new cluster (RBAC, controllers,
 * pods: inserts of resources and containers), then its pods again at a new version (overwrites,
 * containers deleted and inserted), through the engine the push endpoint runs, as the
 * application's role under its scope, on one connection whose backend CPU is read from /proc.
 * Not part of `npm run bench`: run it against a scratch database of your own (it disables and
 * enables triggers, which leaves that database's totals wrong).
 *
 *   DATABASE_URL=postgres://posture_app:...@host/scratch OWNER_URL=postgres://posture:...@host/scratch \
 *   ACCOUNT_ID=... TENANT_ID=... node --import tsx bench/list-totals-ingest.ts [rounds]
 */
import { readFileSync } from 'node:fs';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { withScope } from '../src/db/scope.js';
import { applyKubernetesPush } from '../src/ingest/kubernetes/engine.js';
import { lockCluster } from '../src/ingest/kubernetes/resource-store.js';
import { validatePush } from '../src/modules/clusters/ingest-service.js';
import { lockScans } from '../src/modules/vulnerabilities/scan-store.js';
import { asLists, clusterObjects, podsVersion } from './dataset/kubernetes.js';
import { SIZES } from './sizes.js';

const quiet = { warn: () => {}, error: () => {} };
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const accountId = env('ACCOUNT_ID');
const tenantId = env('TENANT_ID');
const rounds = Number(process.argv[2] ?? 3);
// One cluster of the small size: its RBAC, controllers and pods.
const { cluster: SIZE, images: IMAGES } = SIZES.small.dataset;
const TRIGGERS: [string, string[]][] = [
  ['cluster_resources', ['list_totals_inserted', 'list_totals_updated', 'list_totals_deleted']],
  ['inventory_containers', ['list_totals_inserted', 'list_totals_deleted']],
];

const app = await openDatabase(
  testConfig({ DATABASE_URL: env('DATABASE_URL'), DATABASE_POOL_SIZE: 1 }),
  quiet,
);
const owner = await openDatabase(
  testConfig({ DATABASE_URL: env('OWNER_URL'), DATABASE_POOL_SIZE: 1 }),
  quiet,
);
const scope = { kind: 'tenant' as const, tenantId, accountIds: [accountId] };

const backendPid = await withScope(scope, async () => {
  const { rows } = await app.query<{ pid: number }>('select pg_backend_pid() as pid');
  return rows[0]!.pid;
});
/** The backend's user + system CPU, in ms (clock ticks of 10 ms). */
function backendCpuMs(): number {
  const fields = readFileSync(`/proc/${backendPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function setTriggers(enabled: boolean) {
  for (const [table, names] of TRIGGERS) {
    for (const name of names) {
      await owner.query(`alter table ${table} ${enabled ? 'enable' : 'disable'} trigger ${name}`);
    }
  }
}

async function pushAll(
  cluster: { accountId: string; clusterId: string; clusterName: string },
  lists: object[],
) {
  let objects = 0;
  for (const list of lists) {
    const { objects: parsed } = validatePush(JSON.stringify(list));
    objects += parsed.length;
    const now = new Date();
    await withScope(scope, () =>
      app.transaction(async (tx) => {
        await lockScans(tx, cluster.accountId);
        await lockCluster(tx, cluster);
        await applyKubernetesPush(tx, cluster, parsed, { mode: 'incremental', observedAt: now, now });
      }),
    );
  }
  return objects;
}

async function round(label: string, enabled: boolean) {
  await setTriggers(enabled);
  const name = `totals-${label}-${Date.now()}`;
  const { rows } = await owner.query<{ id: string }>(
    'insert into clusters (account_id, id, name) values ($1, gen_random_uuid(), $2) returning id',
    [accountId, name],
  );
  const cluster = { accountId, clusterId: rows[0]!.id, clusterName: name };
  const cpu = backendCpuMs();
  const started = performance.now();
  let objects = await pushAll(cluster, asLists(clusterObjects(SIZE, IMAGES, name), 500));
  objects += await pushAll(cluster, asLists(podsVersion(SIZE, IMAGES, name, 2), 500));
  const ms = performance.now() - started;
  const cpuMs = backendCpuMs() - cpu;
  console.log(
    `${label} triggers ${enabled ? 'on ' : 'off'}: ${objects} objects, PostgreSQL CPU ${(cpuMs / objects).toFixed(3)} ms/object, ` +
      `${Math.round(objects / (ms / 1000))} objects/s, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
  );
}

try {
  for (let i = 1; i <= rounds; i++) {
    // Alternating which goes first, so a trend of the machine's load weighs on both.
    const order = i % 2 === 1 ? [true, false] : [false, true];
    for (const enabled of order) await round(`round ${i}`, enabled);
  }
} finally {
  await setTriggers(true);
  await app.close();
  await owner.close();
}
