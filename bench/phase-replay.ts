/**
 * What bench/kube-phase.ts and bench/scan-phase.ts share: one phase of the suite replayed on its
 * own, repeatably, against a template database, so two builds can be measured in alternating
 * rounds. `prepareTemplate` stores what the suite holds when the phase starts (the other tenant
 * and the neighbour account loaded at a tenth, then whatever the phase needs of the measured
 * account, statistics analyzed); `runOnClone` clones the template, starts a built server
 * (`node <dist>/server.js`) on the clone, lets the phase push, and prints its rate and the CPU ms
 * per item of the server and of PostgreSQL's backends. Not a test.
 *
 * Options of `run`: `[dist-dir] [--prof dir] [--durations] [--explain ms] [--keep]`. A copied
 * build must stay inside the working tree: a copy elsewhere cannot resolve its packages.
 * `--durations` and `--explain` set logging on the clone database as the superuser (`su
 * postgres`); the statements go to the PostgreSQL server's log.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ApiClient } from './api-client.js';
import { asLists, clusterObjects, podsVersion } from './dataset/kubernetes.js';
import { admin, keptStore, startBuild } from './kept-database.js';
import { bootstrapTenants, type Credentials, populateAccount } from './seed.js';
import { cpuMsOf, memoryOf } from './server-process.js';
import { type DatasetSize, SIZES, type SizeName, tenth } from './sizes.js';

/** A measured cluster's Kubernetes objects as the suite pushes them: Lists of 2,000, pod versions last. */
function clusterLists(size: DatasetSize, clusterName: string) {
  return [
    ...asLists(clusterObjects(size.cluster, size.images, clusterName), 2000),
    ...Array.from({ length: size.cluster.podVersions - 1 }, (_, v) =>
      asLists(podsVersion(size.cluster, size.images, clusterName, v + 2), 2000),
    ).flat(),
  ];
}

export interface ClusterPushes {
  /** clusters to create and push (default: the size's) */
  clusters?: number;
  /** only the first n Lists of each cluster */
  maxPushes?: number;
  /** one cluster after the other instead of one agent per cluster at once */
  sequential?: boolean;
  /** told of each push once it is answered: its objects and how long it took */
  pushed?: (objects: number, ms: number) => void;
}

/**
 * Creates the measured account's clusters (`prod-0`, `prod-1`, ...) and pushes each its Lists, as
 * populateAccount does: one agent per cluster, all at once, each pushing its Lists one after the
 * other (or, with `sequential`, one cluster after the other). Returns the clusters in order.
 */
export async function pushClusters(
  client: ApiClient,
  accountId: string,
  size: DatasetSize,
  { clusters = size.clusters, maxPushes, sequential = false, pushed }: ClusterPushes = {},
): Promise<{ id: string; name: string }[]> {
  const account = `/accounts/${accountId}`;
  const created: { id: string; name: string }[] = [];
  for (let c = 0; c < clusters; c++) {
    created.push(
      await client.post<{ id: string; name: string }>(`${account}/clusters`, { name: `prod-${c}` }),
    );
  }
  const pushCluster = async (cluster: { id: string; name: string }) => {
    const ingest = `${account}/clusters/${cluster.id}/ingest/kubernetes`;
    for (const list of clusterLists(size, cluster.name).slice(0, maxPushes)) {
      const started = performance.now();
      await client.push(ingest, JSON.stringify(list));
      pushed?.((list.items as unknown[]).length, performance.now() - started);
    }
  };
  if (sequential) for (const cluster of created) await pushCluster(cluster);
  else await Promise.all(created.map(pushCluster));
  return created;
}

/**
 * The measured account's clusters with their Kubernetes objects, pushed as populateAccount pushes
 * them (what the scan and runtime phases find stored when they start); the first cluster's id.
 */
export async function pushMeasuredClusters(
  client: ApiClient,
  credentials: Credentials,
  size: DatasetSize,
): Promise<{ clusterId: string }> {
  const [first] = await pushClusters(client, credentials.accountId, size);
  console.log(`${size.clusters} clusters pushed`);
  return { clusterId: first!.id };
}

/** What `run` knows of the template: its size, the measured account and its key, and the phase's own. */
export interface ReplayState {
  size: SizeName;
  accountId: string;
  key: { id: string; secret: string };
  [phaseOwn: string]: unknown;
}

const stateFile = (template: string) => `/tmp/${template}.json`;

/**
 * Builds `template`: the other tenant and the neighbour account at a tenth of `sizeName`, then
 * `measuredAccount` (what the phase needs stored before it starts; its answer joins the state
 * kept in /tmp/<template>.json), then ANALYZE, as autovacuum has by then in the suite.
 */
export async function prepareTemplate(
  template: string,
  sizeName: SizeName,
  measuredAccount: (client: ApiClient, credentials: Credentials, size: DatasetSize) => Promise<object>,
): Promise<void> {
  const size = SIZES[sizeName].dataset;
  await admin(`drop database if exists ${template} with (force)`);
  await admin(`create database ${template}`);
  const store = keptStore(template);
  const credentials = await bootstrapTenants(store);
  const server = await startBuild(template, 'dist');
  try {
    const small = tenth(size);
    const other = await ApiClient.login(
      server.baseUrl,
      credentials.otherTenant.key.id,
      credentials.otherTenant.key.secret,
    );
    const client = await ApiClient.login(server.baseUrl, credentials.key.id, credentials.key.secret);
    const noBar = { increment() {} } as never;
    await populateAccount(other, credentials.otherTenant.accountId, small, noBar);
    await populateAccount(client, credentials.neighbourAccountId, small, noBar);
    const own = await measuredAccount(client, credentials, size);
    const state: ReplayState = {
      ...own,
      size: sizeName,
      accountId: credentials.accountId,
      key: credentials.key,
    };
    writeFileSync(stateFile(template), JSON.stringify(state));
  } finally {
    await server.stop();
  }
  await admin('analyze', template);
  console.log(`template ${template} ready`);
}

/** The clone's database settings asked for by `--durations` and `--explain ms`, as the superuser. */
function setLogging(clone: string, args: readonly string[]): void {
  const su = (sql: string) => spawnSync('su', ['postgres', '-c', `psql -qc "${sql}"`], { stdio: 'inherit' });
  // every statement of the clone with its duration, to the server's log (no plan, no overhead)
  if (args.includes('--durations') || args.includes('--cpu-stats'))
    su(`alter database ${clone} set log_min_duration_statement = 0`);
  // each protocol message's CPU time (getrusage) after its duration line: the CPU of every statement
  if (args.includes('--cpu-stats')) su(`alter database ${clone} set log_statement_stats = on`);
  const explainAt = args.indexOf('--explain');
  if (explainAt < 0) return;
  // auto_explain for the clone only: every statement slower than the given ms, with its plan
  su(`alter database ${clone} set session_preload_libraries = 'auto_explain'`);
  for (const [name, value] of [
    ['log_min_duration', args[explainAt + 1] ?? '100'],
    ['log_analyze', 'on'],
    ['log_buffers', 'on'],
    ['log_nested_statements', 'on'],
  ])
    su(`alter database ${clone} set auto_explain.${name} = '${value}'`);
}

/** The CPU ms of the clone's client backends (the server's pool), by pid, from /proc. */
async function backendsCpu(clone: string): Promise<Map<number, number>> {
  const { rows } = await admin(
    `select pid from pg_stat_activity where datname = '${clone}' and backend_type = 'client backend'`,
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows as { pid: number }[]) {
    try {
      cpu.set(pid, cpuMsOf(pid));
    } catch {
      // gone meanwhile
    }
  }
  return cpu;
}

/** What a phase measured: how many items (`unit`: objects, rows) and anything else to print. */
export interface PhaseResult {
  unit: string;
  items: number;
  details: Record<string, unknown>;
}

/**
 * Clones `template` (FILE_COPY: PostgreSQL 15's default, WAL_LOG, writes an 840 MB template
 * through the WAL block by block, which took ten minutes on the shared machine), runs `phase`
 * against a server on the clone, and prints one JSON line: the rate, the CPU ms per item of the
 * server and of PostgreSQL, and the server's peak resident set. The clone is dropped afterwards unless `--keep`.
 */
export async function runOnClone(
  template: string,
  args: readonly string[],
  phase: (client: ApiClient, state: ReplayState, serverPid: number) => Promise<PhaseResult>,
): Promise<void> {
  const state = JSON.parse(readFileSync(stateFile(template), 'utf8')) as ReplayState;
  const dist = args[0] && !args[0].startsWith('--') ? args[0] : 'dist';
  const profAt = args.indexOf('--prof');
  const profDir = profAt >= 0 ? args[profAt + 1] : undefined;
  const clone = `${template}_run`;
  await admin(`drop database if exists ${clone} with (force)`);
  await admin(`create database ${clone} template ${template} strategy file_copy`);
  setLogging(clone, args);
  const server = await startBuild(clone, dist, profDir);
  try {
    const client = await ApiClient.login(server.baseUrl, state.key.id, state.key.secret);
    const dbBefore = await backendsCpu(clone);
    const cpuBefore = cpuMsOf(server.pid);
    const started = performance.now();
    const { unit, items, details } = await phase(client, state, server.pid);
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMsOf(server.pid) - cpuBefore;
    let dbCpu = 0;
    for (const [pid, ms] of await backendsCpu(clone)) dbCpu += ms - (dbBefore.get(pid) ?? 0);
    const perItem = (ms: number) => Math.round((ms / items) * 1000) / 1000;
    console.log(
      JSON.stringify({
        dist,
        [unit]: items,
        seconds: Math.round(seconds * 10) / 10,
        [`${unit}_per_s`]: Math.round(items / seconds),
        [`server_cpu_ms_per_${unit.replace(/s$/, '')}`]: perItem(cpu),
        [`postgres_cpu_ms_per_${unit.replace(/s$/, '')}`]: perItem(dbCpu),
        loadavg: loadavg()[0],
        // The server's peak resident set over its start and the phase.
        server_peak_rss_mib: memoryOf(server.pid).hwm_mib,
        ...details,
      }),
    );
  } finally {
    await server.stop();
    if (!args.includes('--keep')) await admin(`drop database if exists ${clone} with (force)`);
  }
}

/** `prepare <template> [size]` or `run <template> [options]`, for the scripts built on this module. */
export function replayCommand(script: string): { command: string; template: string; rest: string[] } {
  const [command, template, ...rest] = process.argv.slice(2);
  if (!template || (command !== 'prepare' && command !== 'run')) {
    throw new Error(`usage: ${script} prepare|run <template> ...`);
  }
  return { command, template, rest };
}
