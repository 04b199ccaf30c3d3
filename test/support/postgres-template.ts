/**
 * One migrated PostgreSQL database per schema, from which every test file's database is copied
 * (CREATE DATABASE ... TEMPLATE): a file copy of a few hundred milliseconds, instead of running
 * every migration again in each of the ~85 test processes that need a database.
 *
 * The template is built once per server and schema fingerprint, under an advisory lock so that
 * parallel test processes wait for the first one's build instead of racing it. It is built under
 * a temporary name and renamed when complete, so a crashed build is never used. It accepts no
 * connections once built: CREATE DATABASE refuses a template someone (autovacuum included) is
 * connected to. Templates of older schemas are left in place, since another working tree on the
 * same server may still use one (docs/development.md says how to drop them).
 *
 * @example
 *   const template = await ensureTemplate(admin, serverUrl, 'posture_app');
 *   await admin.query(`create database ${name} template ${template}`);
 */
import type pg from 'pg';
import { testConfig } from '../../src/config.js';
import { grantAppRole } from '../../src/db/app-role.js';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrator.js';
import { schemaFingerprint } from './schema-fingerprint.js';

const TEMPLATE_PREFIX = 'posture_template_';
/** Arbitrary constant: the advisory lock of template builds (on DATABASE_URL's own database). */
const TEMPLATE_LOCK_KEY = 7_106_355_812;
const quietLogger = { warn() {}, error() {} };

async function databaseExists(admin: pg.Client, name: string): Promise<boolean> {
  const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
  return (rowCount ?? 0) > 0;
}

async function build(admin: pg.Client, serverUrl: string, appRole: string, name: string): Promise<void> {
  const building = `${name}_building`;
  await dropTemplate(admin, building); // what a crashed build left behind
  await admin.query(`create database ${building}`);
  const url = new URL(serverUrl);
  url.pathname = `/${building}`;
  const owner = await openDatabase(testConfig({ DATABASE_URL: url.toString() }), quietLogger);
  try {
    await migrate(owner);
    await grantAppRole(owner, appRole);
  } finally {
    await owner.close();
  }
  await admin.query(`alter database ${building} rename to ${name}`);
  await admin.query(`alter database ${name} with is_template true allow_connections false`);
}

async function dropTemplate(admin: pg.Client, name: string): Promise<void> {
  if (!(await databaseExists(admin, name))) return;
  await admin.query(`alter database ${name} with is_template false`);
  await admin.query(`drop database ${name} with (force)`);
}

/** The name of the template for the current schema, built first when the server lacks it. */
export async function ensureTemplate(admin: pg.Client, serverUrl: string, appRole: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${schemaFingerprint(['src/db/app-role.ts'])}`;
  if (await databaseExists(admin, name)) return name;
  await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
  try {
    if (await databaseExists(admin, name)) return name;
    await build(admin, serverUrl, appRole, name);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
}
