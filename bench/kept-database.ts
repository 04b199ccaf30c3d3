/**
 * What the before/after round tools (`bench/rows-rounds.ts`, `bench/paired-rounds.ts`,
 * `bench/phase-replay.ts`) share: a database kept on DATABASE_URL's server between runs, its
 * seeded tenants and list cases, and a build's server started on it as the application role, as
 * the suite starts it (server-process.ts). A kept store named by an absolute
 * path is a PGlite DATA_DIR instead (one kept by `npm run bench -- --engine pglite --keep`).
 *
 * @example
 *   await admin('create database posture_rows');
 *   const server = await startBuild('posture_rows', '/tmp/before/dist');
 *   // ... measure server.baseUrl, server.pid ...
 *   await server.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import type { ApiClient } from './api-client.js';
import { buildCases, type LoadCase } from './cases.js';
import { onConnection } from './pg-connection.js';
import type { Credentials } from './seed.js';
import { freePort, type Store, serverEnv, waitUntilReady } from './server-process.js';

export const APP_ROLE = { user: 'posture_app', password: 'posture_app' };

/** DATABASE_URL: the owner's URL of the server the kept databases live on. */
export function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is needed');
  return url;
}

/** The URL of database `name` on that server, as the owner or as `user`. */
export function databaseUrl(name: string, user?: { user: string; password: string }): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  if (user) {
    url.username = user.user;
    url.password = user.password;
  }
  return url.toString();
}

/** One statement as the owner, on the server's default database or on `database`. */
export async function admin(sql: string, database?: string) {
  return onConnection(database ? databaseUrl(database) : serverUrl(), (client) => client.query(sql));
}

/** Whether the kept store `name` is a PGlite DATA_DIR (an absolute path) rather than a database. */
export function isEmbeddedStore(name: string): boolean {
  return isAbsolute(name);
}

/** Where the round tools keep a kept store's credentials (`rows-rounds.ts seed` and `adopt`). */
export function credentialsFile(name: string): string {
  return `/tmp/${basename(name)}.json`;
}

/** A kept store's tenants, keys and measured cluster, as `rows-rounds.ts seed` and `adopt` write them. */
export interface Seeded {
  credentials: Credentials;
  clusterId: string;
}

export function readSeeded(name: string): Seeded {
  return JSON.parse(readFileSync(credentialsFile(name), 'utf8')) as Seeded;
}

/**
 * The seeded store's list cases (not the login); with patterns in `only`, those whose name holds
 * one of them, the tiny response (`account (tiny)`) among them only when named.
 */
export async function listCasesOf(
  client: ApiClient,
  seeded: Seeded,
  only: readonly string[],
): Promise<LoadCase[]> {
  const cases = await buildCases(client, {
    accountId: seeded.credentials.accountId,
    clusterId: seeded.clusterId,
    key: seeded.credentials.key,
  });
  return cases.filter(
    (c) =>
      c.kind !== 'auth' &&
      // the tiny response only when named: it is no list, and its ceiling is the bare server's
      (only.length === 0 ? c.kind !== 'tiny' : only.some((pattern) => c.name.includes(pattern))),
  );
}

/** The kept store as the suite's seeding code takes a store; dropping it is left to the caller. */
export function keptStore(name: string): Store {
  if (isEmbeddedStore(name)) {
    return {
      engine: 'pglite',
      url: undefined,
      appUrl: undefined,
      dataDir: name,
      open: () =>
        openDatabase(testConfig({ DATABASE_URL: undefined, DATA_DIR: name }), { warn() {}, error() {} }),
      drop: async () => {},
    };
  }
  return {
    engine: 'postgres',
    url: databaseUrl(name),
    appUrl: databaseUrl(name, APP_ROLE),
    dataDir: undefined,
    open: () => openDatabase(testConfig({ DATABASE_URL: databaseUrl(name) }), { warn() {}, error() {} }),
    drop: async () => {},
  };
}

/**
 * Starts `node <dist>/server.js` on the kept database (optionally under --cpu-prof into
 * `profDir`) and waits until it is ready (server-process.ts). `build` is a dist directory,
 * optionally followed by node flags after `::` (`dist::--max-semi-space-size=32`), so that rounds
 * can compare one build under two settings of the runtime.
 */
export async function startBuild(database: string, build: string, profDir?: string) {
  const [dist, ...flags] = build.split('::');
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [...flags, ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), `${dist}/server.js`],
    {
      env: serverEnv(keptStore(database), port),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(baseUrl, child);
  return {
    baseUrl,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
