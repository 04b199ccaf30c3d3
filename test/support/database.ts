/**
 * A freshly migrated database for one test process: PGlite in memory by default; with
 * DATABASE_URL set, a new PostgreSQL database created on that server (and dropped afterwards), so
 * parallel test files never share state.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrator.js';

const quietLogger = { warn() {}, error() {} };

export interface TestDatabase {
  db: Database;
  /** the DATABASE_URL of the per-process database, when running on PostgreSQL */
  url: string | undefined;
  close(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const db = await openDatabase(testConfig({ DATABASE_URL: undefined }), quietLogger);
    await migrate(db);
    return { db, url: undefined, close: () => db.close() };
  }
  const name = `posture_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase(testConfig({ DATABASE_URL: url.toString() }), quietLogger);
  await migrate(db);
  return {
    db,
    url: url.toString(),
    async close() {
      await db.close();
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
