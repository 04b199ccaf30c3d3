/**
 * The server under test: a throwaway store (a PostgreSQL database created on DATABASE_URL's server
 * and dropped at the end, or a temporary PGlite DATA_DIR removed at the end) and the real server
 * (`node dist/server.js`, as production runs it, built from this checkout first when dist/ is
 * older than src/: built-server.ts) as a child process on 127.0.0.1 and a free port. Its memory
 * is read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from '../src/config.js';
import { type Database, openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrator.js';
import { TEST_APP_ROLE } from '../test/support/database.js';
import { BUILT_SERVER, ensureBuiltServer } from './built-server.js';
import { onConnection } from './pg-connection.js';

export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-00';
const quiet = { warn() {}, error() {} };

export interface Store {
  engine: 'postgres' | 'pglite';
  /** the throwaway database as its owner (PostgreSQL only): seeding, migrations, SQL tools */
  url: string | undefined;
  /** the same database as the application's role, which the server connects as (row-level security) */
  appUrl: string | undefined;
  dataDir: string | undefined;
  /** opens the store in this process (PGlite: only while the server is stopped) */
  open(): Promise<Database>;
  drop(): Promise<void>;
}

export async function createStore(
  engine: 'postgres' | 'pglite',
  serverUrl: string | undefined,
): Promise<Store> {
  if (engine === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'posture-bench-'));
    return {
      engine,
      url: undefined,
      appUrl: undefined,
      dataDir,
      open: () => openDatabase(testConfig({ DATABASE_URL: undefined, DATA_DIR: dataDir }), quiet),
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!serverUrl)
    throw new Error('--engine postgres needs DATABASE_URL (a server where the role may CREATE DATABASE)');
  const name = `posture_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    await onConnection(serverUrl, (client) => client.query(sql));
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const appUrl = new URL(url);
  appUrl.username = TEST_APP_ROLE.user;
  appUrl.password = TEST_APP_ROLE.password;
  return {
    engine,
    url: url.toString(),
    appUrl: appUrl.toString(),
    dataDir: undefined,
    open: () => openDatabase(testConfig({ DATABASE_URL: url.toString() }), quiet),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** Opens the store, applies the migrations, runs `work`, closes it again. */
export async function withStore<T>(store: Store, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await store.open();
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

/** A port free on 127.0.0.1 at the time of asking. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ServerProcess {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** The environment the suite starts a server with, on `store`, listening on 127.0.0.1:`port`. */
export function serverEnv(store: Store, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    // As in production: the server connects as the application's role and migrates as the owner.
    DATABASE_URL: store.appUrl ?? '',
    DATABASE_MIGRATION_URL: store.url ?? '',
    DATA_DIR: store.dataDir ?? '',
    POSTURE_SECRET: BENCH_SECRET,
    DEMO: 'false',
    LOG_LEVEL: 'warn',
    // The load comes from one client address and one token: the per-token limit would measure itself.
    RATE_LIMIT_PER_MINUTE: '0',
    NODE_ENV: 'production',
  };
}

/**
 * Waits until the server at `baseUrl` answers `/readyz`, 60 s at most; fails at once when `child`
 * exits while starting.
 */
export async function waitUntilReady(baseUrl: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} while starting`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (attempt > 600) throw new Error('the server did not become ready within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startServer(store: Store): Promise<ServerProcess> {
  ensureBuiltServer((line) => console.error(line));
  const port = await freePort();
  const env = serverEnv(store, port);
  // BENCH_SERVER_FLAGS: node options for the server alone (not the orchestrator, as NODE_OPTIONS
  // would be), to measure a flag before it goes into how the server starts.
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...flags, BUILT_SERVER], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // Said out loud: a request that fails next would otherwise only say "other side closed".
      if (!stopping)
        console.error(`\nbench: the server exited unexpectedly (code ${code}, signal ${signal})`);
      resolve();
    }),
  );
  await waitUntilReady(baseUrl, child);
  return {
    baseUrl,
    pid: child.pid!,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident set, its peak (VmHWM) and its anonymous and file-backed shares of a process, in MiB, from /proc (Linux). */
export function memoryOf(pid: number): {
  rss_mib: number;
  hwm_mib: number;
  anon_mib: number;
  file_mib: number;
} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) =>
    Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 102.4) / 10;
  // The resident set's anonymous share (heaps) apart from its file-backed one (code, libraries).
  return { rss_mib: mib('VmRSS'), hwm_mib: mib('VmHWM'), anon_mib: mib('RssAnon'), file_mib: mib('RssFile') };
}

/** Resets the peak resident set of `pid` to its current size (Linux: clear_refs 5). */
export function resetPeakMemory(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return ticks * 10; // USER_HZ is 100 on Linux
}
