/**
 * The suite's scan phase on its own, repeatable: `prepare` builds a template database holding
 * what the suite has stored when the measured account's scans start (the other tenant and the
 * neighbour account fully loaded at a tenth, the measured account's two clusters with their pods,
 * statistics analyzed), then `run` clones it, starts a built server (`node <dist>/server.js`)
 * on the clone and pushes the measured account's scan reports through the HTTP endpoint, one
 * after the other, as bench/seed.ts does. It prints rows/s and the server's CPU ms per row, so a
 * change can be measured in alternating rounds against a copy of the previous build.
 *
 *   DATABASE_URL=postgres://posture:posture@127.0.0.1:5432/posture \
 *     npx tsx bench/scan-phase.ts prepare posture_vuln2_tpl [size]
 *   DATABASE_URL=... npx tsx bench/scan-phase.ts run posture_vuln2_tpl [dist-dir] [--prof dir]
 *     [--durations] [--explain ms] [--keep]
 *
 * Both start `dist/server.js` unless told another build: `npm run build:server` first (copy dist/
 * aside to keep the previous build, inside the worktree: a copy elsewhere cannot resolve its
 * packages from node_modules). The template's credentials are kept in /tmp/<template>.json.
 * `--durations` and `--explain` set logging on the clone database as the superuser (`su
 * postgres`); the statements go to the PostgreSQL server's log. Not a test.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import pg from 'pg';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { ApiClient } from './api-client.js';
import { asLists, clusterObjects, podsVersion } from './dataset/kubernetes.js';
import { scanReport } from './dataset/scans.js';
import { bootstrapTenants, populateAccount } from './seed.js';
import { BENCH_SECRET, cpuMsOf, type Store } from './server-process.js';
import { SIZES, type SizeName, tenth } from './sizes.js';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL is needed');
const [command, template, ...rest] = process.argv.slice(2);
if (!template) throw new Error('usage: scan-phase.ts prepare|run <template> ...');
const stateFile = `/tmp/${template}.json`;

const urlOf = (name: string, user?: { user: string; password: string }) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  if (user) {
    url.username = user.user;
    url.password = user.password;
  }
  return url.toString();
};

async function admin(sql: string, database?: string) {
  const client = new pg.Client({ connectionString: database ? urlOf(database) : serverUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startServer(database: string, dist: string, profDir?: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), `${dist}/server.js`],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: urlOf(database, { user: 'posture_app', password: 'posture_app' }),
        DATABASE_MIGRATION_URL: urlOf(database),
        POSTURE_SECRET: BENCH_SECRET,
        DEMO: 'false',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseUrl,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface State {
  size: SizeName;
  accountId: string;
  clusterId: string;
  key: { id: string; secret: string };
}

if (command === 'prepare') {
  const size = SIZES[(rest[0] ?? 'medium') as SizeName].dataset;
  await admin(`drop database if exists ${template} with (force)`);
  await admin(`create database ${template}`);
  const store: Store = {
    engine: 'postgres',
    url: urlOf(template),
    appUrl: urlOf(template, { user: 'posture_app', password: 'posture_app' }),
    dataDir: undefined,
    open: () => openDatabase(testConfig({ DATABASE_URL: urlOf(template) }), { warn() {}, error() {} }),
    drop: async () => {},
  };
  const credentials = await bootstrapTenants(store);
  const server = await startServer(template, 'dist');
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
    // The measured account up to its scans: clusters and pods, as populateAccount pushes them.
    const account = `/accounts/${credentials.accountId}`;
    const clusterIds: string[] = [];
    for (let c = 0; c < size.clusters; c++) {
      const cluster = await client.post<{ id: string; name: string }>(`${account}/clusters`, {
        name: `prod-${c}`,
      });
      clusterIds.push(cluster.id);
      const ingest = `${account}/clusters/${cluster.id}/ingest/kubernetes`;
      const objects = [
        ...asLists(clusterObjects(size.cluster, size.images, cluster.name), 2000),
        ...Array.from({ length: size.cluster.podVersions - 1 }, (_, v) =>
          asLists(podsVersion(size.cluster, size.images, cluster.name, v + 2), 2000),
        ).flat(),
      ];
      for (const list of objects) await client.push(ingest, JSON.stringify(list));
      console.log(`cluster ${c} pushed`);
    }
    const state: State = {
      size: (rest[0] ?? 'medium') as SizeName,
      accountId: credentials.accountId,
      clusterId: clusterIds[0]!,
      key: credentials.key,
    };
    writeFileSync(stateFile, JSON.stringify(state));
  } finally {
    await server.stop();
  }
  // The suite's Kubernetes phase lasts minutes, so autovacuum has analyzed what was stored
  // before the measured account's first scan.
  await admin('analyze', template);
  console.log(`template ${template} ready`);
} else if (command === 'run') {
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as State;
  const size = SIZES[state.size].dataset;
  const dist = rest[0] && !rest[0].startsWith('--') ? rest[0] : 'dist';
  const profAt = rest.indexOf('--prof');
  const profDir = profAt >= 0 ? rest[profAt + 1] : undefined;
  const clone = `${template}_run`;
  await admin(`drop database if exists ${clone} with (force)`);
  // FILE_COPY: PostgreSQL 15's default (WAL_LOG) writes the 840 MB medium template through the
  // WAL block by block, which took ten minutes on the shared machine; a file copy takes seconds.
  await admin(`create database ${clone} template ${template} strategy file_copy`);
  if (rest.includes('--durations')) {
    // every statement of the clone with its duration, to the server's log (no plan, no overhead)
    spawnSync(
      'su',
      ['postgres', '-c', `psql -qc "alter database ${clone} set log_min_duration_statement = 0"`],
      {
        stdio: 'inherit',
      },
    );
  }
  const explainAt = rest.indexOf('--explain');
  if (explainAt >= 0) {
    // auto_explain for the clone only (its own database settings, as the superuser): every
    // statement slower than the given ms is logged with its plan, to the server's log.
    const su = (sql: string) =>
      spawnSync('su', ['postgres', '-c', `psql -qc "${sql}"`], { stdio: 'inherit' });
    su(`alter database ${clone} set session_preload_libraries = 'auto_explain'`);
    for (const [name, value] of [
      ['log_min_duration', rest[explainAt + 1] ?? '100'],
      ['log_analyze', 'on'],
      ['log_buffers', 'on'],
      ['log_nested_statements', 'on'],
    ])
      su(`alter database ${clone} set auto_explain.${name} = '${value}'`);
  }
  const server = await startServer(clone, dist, profDir);
  try {
    const client = await ApiClient.login(server.baseUrl, state.key.id, state.key.secret);
    const url = `/accounts/${state.accountId}/clusters/${state.clusterId}/ingest/vulnerabilities`;
    const bodies = Array.from({ length: size.images }, (_, image) =>
      JSON.stringify(scanReport(image, size.packagesPerImage, size.cvesPerPackage, 0)),
    );
    const rows = size.images * size.packagesPerImage * size.cvesPerPackage;
    // PostgreSQL's share: the CPU of the clone's backends (the server's pool), read from /proc.
    const backendsCpu = async () => {
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
    };
    const dbBefore = await backendsCpu();
    const cpuBefore = cpuMsOf(server.pid);
    const started = performance.now();
    const perTenth: number[] = [];
    let tenthStart = started;
    for (const [i, body] of bodies.entries()) {
      await client.push(url, body);
      if ((i + 1) % Math.max(1, Math.round(size.images / 10)) === 0) {
        perTenth.push(Math.round(performance.now() - tenthStart));
        tenthStart = performance.now();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMsOf(server.pid) - cpuBefore;
    let dbCpu = 0;
    for (const [pid, ms] of await backendsCpu()) dbCpu += ms - (dbBefore.get(pid) ?? 0);
    console.log(
      JSON.stringify({
        dist,
        rows,
        seconds: Math.round(seconds * 10) / 10,
        rows_per_s: Math.round(rows / seconds),
        server_cpu_ms_per_row: Math.round((cpu / rows) * 1000) / 1000,
        postgres_cpu_ms_per_row: Math.round((dbCpu / rows) * 1000) / 1000,
        loadavg: loadavg()[0],
        ms_per_tenth_of_pushes: perTenth,
      }),
    );
  } finally {
    await server.stop();
    if (!rest.includes('--keep')) await admin(`drop database if exists ${clone} with (force)`);
  }
} else {
  throw new Error(`unknown command ${command}`);
}
