/**
 * Before/after of the per-request cost: alternating rounds (A B, B A, ...) of the tiny
 * authenticated response and of authenticate against several server builds on one store (a
 * bootstrapped tenant, no ingestion), each build started as `node <dist>/server.js` for its round.
 * Prints per case the server's CPU ms per request (and its system share), PostgreSQL's backends'
 * CPU ms per request, req/s and latency, and once per round the bare HTTP ceiling on the same
 * bytes. On a shared machine compare the CPU columns (docs/performance.md, "Fix 5", "Third pass").
 *
 *   node --import tsx bench/request-rounds.ts --engine postgres --rounds 4 --seconds 8 \
 *     before=/path/to/other/dist/server.js after=dist/server.js
 *
 * --only tiny|auth, --flags=--perf-prof (node flags of the server; SERVER_CWD for where it writes),
 * --perf <prefix> and --pgperf <prefix> (perf record of the server, or of PostgreSQL's backends,
 * during each case), --prof <dir> (--cpu-prof), WARMUP=<s> (default 3).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { backendCpu } from './backend-cpu.js';
import { BareHttpCeiling } from './ceilings/bare-http-client.js';
import { Helper, type LoadSummary } from './load/protocol.js';
import { onConnection } from './pg-connection.js';
import { bootstrapTenants } from './seed.js';
import { cpuMsOf, createStore, freePort, serverEnv, waitUntilReady } from './server-process.js';

function sysMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[12]) * 10;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string', default: 'postgres' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string', default: 'tiny,auth' },
    prof: { type: 'string' },
    flags: { type: 'string', default: '' },
    perf: { type: 'string' },
    'setup-sql': { type: 'string' },
    pgperf: { type: 'string' },
  },
});
const engine = values.engine as 'postgres' | 'pglite';
const builds = positionals.map((p) => {
  const [name, path] = p.split('=');
  return { name: name!, path: path! };
});
const only = new Set(values.only!.split(','));

async function start(path: string, store: Awaited<ReturnType<typeof createStore>>, prof?: string) {
  const port = await freePort();
  const flags = [
    ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
    ...values.flags!.split(/\s+/).filter(Boolean),
  ];
  const child: ChildProcess = spawn(process.execPath, [...flags, path], {
    cwd: process.env.SERVER_CWD ?? process.cwd(),
    env: serverEnv(store, port),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(baseUrl, child);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    baseUrl,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGINT');
      await exited;
    },
  };
}

const store = await createStore(engine, process.env.DATABASE_URL);
const load = new Helper('./worker.ts');
const bare = new BareHttpCeiling();
const rows: string[] = [];
try {
  const creds = await bootstrapTenants(store);
  if (values['setup-sql'] && store.url) {
    const setupSql = values['setup-sql'];
    await onConnection(store.url, (client) => client.query(setupSql));
  }
  const meter = await backendCpu(store.url);
  const loginBody = JSON.stringify({ access_key_id: creds.key.id, secret_key: creds.key.secret });
  const rounds = Number(values.rounds);
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const server = await start(build.path, store, values.prof ? `${values.prof}/${build.name}` : undefined);
      try {
        const login = await fetch(`${server.baseUrl}/authentication/authenticate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: loginBody,
        });
        const { token } = (await login.json()) as { token: string };
        const cases = [
          {
            name: 'tiny',
            method: 'GET' as const,
            url: `${server.baseUrl}/accounts/${creds.accountId}`,
            headers: { authorization: `Bearer ${token}` },
          },
          {
            name: 'auth',
            method: 'POST' as const,
            url: `${server.baseUrl}/authentication/authenticate`,
            headers: { 'content-type': 'application/json' },
            body: loginBody,
          },
        ].filter((c) => only.has(c.name));
        for (const c of cases) {
          // warm-up
          await load.ask({
            ...c,
            connections: Number(values.connections),
            seconds: Number(process.env.WARMUP ?? 3),
          });
          const cpu0 = cpuMsOf(server.pid);
          const sys0 = sysMsOf(server.pid);
          const db0 = await meter.read();
          const started = Date.now();
          let pgperf: ChildProcess | undefined;
          if (values.pgperf && store.url) {
            const { rows } = await onConnection(store.url, (client) =>
              client.query<{ pid: number }>(
                'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
              ),
            );
            pgperf = spawn(
              'perf',
              [
                'record',
                '-F',
                '999',
                '-g',
                '-p',
                rows.map((r) => r.pid).join(','),
                '-o',
                `${values.pgperf}.${build.name}.${c.name}.r${round}.data`,
                '--',
                'sleep',
                String(Number(values.seconds) - 1),
              ],
              { stdio: 'ignore' },
            );
          }
          const perf = values.perf
            ? spawn(
                'perf',
                [
                  'record',
                  '-k',
                  '1',
                  '-F',
                  '1999',
                  '-g',
                  '-p',
                  String(server.pid),
                  '-o',
                  `${values.perf}.${build.name}.${c.name}.r${round}.data`,
                  '--',
                  'sleep',
                  String(Number(values.seconds) - 1),
                ],
                { stdio: 'ignore' },
              )
            : undefined;
          const s = (
            await load.ask<{ summary: LoadSummary }>({
              ...c,
              connections: Number(values.connections),
              seconds: Number(values.seconds),
            })
          ).summary;
          const cpu = (cpuMsOf(server.pid) - cpu0) / Math.max(1, s.requests);
          const sys = (sysMsOf(server.pid) - sys0) / Math.max(1, s.requests);
          if (perf && perf.exitCode === null) await new Promise((r) => perf.once('exit', r));
          if (pgperf && pgperf.exitCode === null) await new Promise((r) => pgperf!.once('exit', r));
          const db1 = await meter.read();
          const dbCpu = db0 !== null && db1 !== null ? (db1 - db0) / Math.max(1, s.requests) : null;
          const loadavg = (await import('node:os')).loadavg()[0]!.toFixed(1);
          const row = `${new Date(started).toISOString().slice(11, 19)} r${round} ${build.name.padEnd(6)} ${c.name.padEnd(5)} cpu_ms=${cpu.toFixed(3)} sys_ms=${sys.toFixed(3)} db_ms=${dbCpu === null ? '-' : dbCpu.toFixed(3)} rps=${s.rps} p50=${s.p50_ms} p99=${s.p99_ms} non2xx=${s.non2xx} err=${s.errors} load=${loadavg}`;
          console.log(row);
          rows.push(row);
        }
        if (only.has('tiny') && build === order[0]) {
          const res = await fetch(`${server.baseUrl}/accounts/${creds.accountId}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          const body = await res.text();
          const url = await bare.serve(body, res.headers.get('content-type') ?? 'application/json');
          await load.ask({ url, method: 'GET', headers: {}, connections: 16, seconds: 1 });
          const b0 = cpuMsOf(bare.pid);
          const s = (
            await load.ask<{ summary: LoadSummary }>({
              url,
              method: 'GET',
              headers: {},
              connections: Number(values.connections),
              seconds: Number(values.seconds),
            })
          ).summary;
          const cpu = (cpuMsOf(bare.pid) - b0) / Math.max(1, s.requests);
          const row = `r${round} bare   tiny  cpu_ms=${cpu.toFixed(3)} rps=${s.rps} p99=${s.p99_ms}`;
          console.log(row);
          rows.push(row);
        }
      } finally {
        await server.stop();
      }
    }
  }
  await meter.close();
} finally {
  await load.stop();
  await bare.stop();
  await store.drop();
}
