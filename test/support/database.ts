/**
 * A freshly migrated database for one test process: PGlite in memory by default; with
 * DATABASE_URL set, a new PostgreSQL database created on that server (and dropped afterwards), so
 * parallel test files never share state. Both start from a copy of one migrated database
 * (pglite-image.ts, postgres-template.ts) rather than migrating again in every process.
 *
 * On PostgreSQL the two roles of production (docs/security.md, "Row-level security"): the
 * database is created and migrated by DATABASE_URL's role (the owner), which then grants the
 * application's role, `posture_app` (made by .ci/postgres.sh), its data rights; `db` connects as
 * that role, so the row-level security policies bind every query of the app under test. `owner`
 * connects as the owner, whom the policies do not bind: fixtures and dumps go through it (or through
 * `withSystemScope`), never silently seeing nothing. On PGlite both are the same handle.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testConfig } from '../../src/config.js';
import { grantAppRole } from '../../src/db/app-role.js';
import { type Database, type Executor, openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrator.js';
import { openPglite } from '../../src/db/pglite.js';
import { openMigratedPglite } from './pglite-image.js';
import { ensureTemplate } from './postgres-template.js';

const quietLogger = { warn() {}, error() {} };

/** The application's role on the test server (see .ci/postgres.sh). */
export const TEST_APP_ROLE = { user: 'posture_app', password: 'posture_app' } as const;

export interface TestDatabase {
  /** the application's connection (PostgreSQL: the posture_app role, bound by row-level security) */
  db: Database;
  /** the owner's connection, not bound by row-level security: fixtures and dumps */
  owner: Database;
  /** the DATABASE_URL of the per-process database (the application's role), on PostgreSQL */
  url: string | undefined;
  /** the same database as its owner (DATABASE_MIGRATION_URL of a server under test), on PostgreSQL */
  ownerUrl: string | undefined;
  close(): Promise<void>;
}

export interface TestDatabaseOptions {
  /**
   * Migrate an empty database in this process instead of copying the shared migrated one: for
   * the tests that check the copies are what the migrations make.
   */
  fromScratch?: boolean;
}

export async function createTestDatabase({
  fromScratch = false,
}: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const db = fromScratch ? await openPglite(':memory:') : await openMigratedPglite();
    if (fromScratch) await migrate(db);
    return { db, owner: db, url: undefined, ownerUrl: undefined, close: () => db.close() };
  }
  const name = `posture_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const template = fromScratch ? undefined : await ensureTemplate(admin, serverUrl, TEST_APP_ROLE.user);
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const ownerUrl = new URL(serverUrl);
  ownerUrl.pathname = `/${name}`;
  const appUrl = new URL(ownerUrl);
  appUrl.username = TEST_APP_ROLE.user;
  appUrl.password = TEST_APP_ROLE.password;
  const owner = await openDatabase(testConfig({ DATABASE_URL: ownerUrl.toString() }), quietLogger);
  if (fromScratch) {
    await migrate(owner);
    await grantAppRole(owner, TEST_APP_ROLE.user);
  }
  const db = await openDatabase(testConfig({ DATABASE_URL: appUrl.toString() }), quietLogger);
  return {
    db,
    owner,
    url: appUrl.toString(),
    ownerUrl: ownerUrl.toString(),
    async close() {
      await db.close();
      await owner.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      try {
        // An autovacuum worker may be visiting the new database; FORCE may not signal it without
        // pg_signal_backend, so wait for it to leave rather than fail the test file.
        for (let attempt = 1; ; attempt++) {
          try {
            await cleanup.query(`drop database if exists ${name} with (force)`);
            break;
          } catch (error) {
            if (attempt >= 20) throw error;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      } finally {
        await cleanup.end(); // never leave a client open: it would keep the test process alive
      }
    },
  };
}

/**
 * The row count the planner's statistics hold for a table (`pg_class.reltuples`; -1 when it was
 * never analyzed). Read through the owner's connection: row-level security hides pg_stats.
 */
export async function analyzedRowCount(owner: Executor, table: string): Promise<number> {
  const { rows } = await owner.query<{ reltuples: number }>(
    'select reltuples::float8 as reltuples from pg_class where oid = $1::regclass',
    [`public.${table}`],
  );
  return rows[0]!.reltuples;
}
