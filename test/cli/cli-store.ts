/**
 * A store for CLI tests: a temporary DATA_DIR (mkdtemp), plus, when DATABASE_URL is set, a new
 * empty PostgreSQL database on that server, so `posture migrate` sees a fresh store on both
 * engines. The CLI runs in-process through runCli with an env naming that store; `withApp` opens
 * the same store afterwards and builds the real app on it, with the pepper the server would use.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { runCli } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { loadServerSecret } from '../../src/security/secrets.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A well-formed id that names nothing. */
export const SOME_UUID = '6f1c1f0e-3b1a-4c55-9a43-1f6c9d3c2b10';

/** Runs one command line in-process with exactly this environment, capturing both streams. */
export async function captureCli(argv: readonly string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

export function succeeded(run: CliRun): void {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
  assert.equal(run.stderr, '');
}

/** The failure contract: this exit code, nothing on stdout, exactly one `posture: ` line on stderr. */
export function failedWith(run: CliRun, code: number, message: RegExp): void {
  assert.equal(run.code, code, `exit code; stderr: ${run.stderr}`);
  assert.match(run.stderr, /^posture: [^\n]+\n$/);
  assert.match(run.stderr, message);
  assert.equal(run.stdout, '');
}

/** What `posture bootstrap --json` prints. */
export interface Boot {
  tenant_id: string;
  account_id: string;
  user_id: string;
  access_key_id: string;
  secret_key: string;
}

/** The real app on the store the CLI wrote, with the two calls these tests need. */
export interface OpenedApp {
  app: FastifyInstance;
  db: Database;
  /** POST /authentication/authenticate: the status, and the session token on success. */
  authenticate(accessKeyId: string, secretKey: string): Promise<{ status: number; token?: string }>;
  /** An authenticated GET: status and JSON body. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies of every shape
  get(url: string, token: string): Promise<{ status: number; body: any }>;
}

export interface CliStore {
  /** the environment a `posture` process gets: the store's DATA_DIR and DATABASE_URL, nothing else */
  env: Record<string, string>;
  dataDir: string;
  run(...argv: string[]): Promise<CliRun>;
  /** Runs a command with --json, asserts success and returns the parsed output. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON output of every shape
  json(...argv: string[]): Promise<any>;
  /** `posture bootstrap` of a tenant with a fresh name and an account named `main`. */
  bootstrap(): Promise<Boot>;
  /**
   * Opens the store the CLI wrote (the CLI has closed it: PGlite allows one process) and builds
   * the real app on it, with the pepper the server would load from this environment.
   */
  withApp<T>(work: (opened: OpenedApp) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function emptyPostgresDatabase(serverUrl: string) {
  const name = `posture_cli_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

function openedApp(app: FastifyInstance, db: Database): OpenedApp {
  return {
    app,
    db,
    async authenticate(accessKeyId, secretKey) {
      const res = await app.inject({
        method: 'POST',
        url: '/authentication/authenticate',
        payload: { access_key_id: accessKeyId, secret_key: secretKey },
      });
      return { status: res.statusCode, ...(res.statusCode === 200 ? { token: res.json().token } : {}) };
    },
    async get(url, token) {
      const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      return { status: res.statusCode, body: res.json() };
    },
  };
}

let counter = 0;

export async function createCliStore(): Promise<CliStore> {
  const dir = mkdtempSync(join(tmpdir(), 'posture-cli-'));
  const serverUrl = process.env.DATABASE_URL;
  const postgres = serverUrl ? await emptyPostgresDatabase(serverUrl) : undefined;
  // No POSTURE_SECRET: the CLI generates DATA_DIR/posture.secret and the app must find the same one.
  const env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: postgres?.url ?? '', LOG_LEVEL: 'silent' };
  const run = (...argv: string[]) => captureCli(argv, env);

  async function json(...argv: string[]) {
    const result = await run(...argv, '--json');
    succeeded(result);
    return JSON.parse(result.stdout);
  }

  return {
    env,
    dataDir: env.DATA_DIR,
    run,
    json,
    bootstrap: () => json('bootstrap', '--tenant', `tenant-${++counter}`, '--account', 'main'),
    async withApp(work) {
      const config = loadConfig(env);
      const db = await openDatabase(config, { warn() {}, error() {} });
      try {
        const app = await buildApp({
          config: { ...config, RATE_LIMIT_PER_MINUTE: 0 },
          db,
          pepper: loadServerSecret(config),
        });
        try {
          await app.ready();
          return await work(openedApp(app, db));
        } finally {
          await app.close();
        }
      } finally {
        await db.close();
      }
    },
    async close() {
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
