/**
 * Regressions found by database-outage.test.ts:
 * - a PostgreSQL connection terminated while a transaction held it emitted an 'error' event nobody
 *   listened to, and the server process exited. Now the transaction fails with an error the API
 *   answers as 503 `unavailable`, and the pool replaces the connection.
 * - a database refusing connections (`ALLOW_CONNECTIONS false`: FATAL 55000) answered 500
 *   `internal`; every FATAL error (the session is gone) now counts as the database being unavailable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable } from '../../src/http/unavailable.js';
import { createTestDatabase } from '../support/database.js';

test('a connection terminated during a transaction fails the transaction, not the process', {
  skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: set DATABASE_URL',
}, async () => {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    const attempt = database.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
      // The termination arrives while the client sits idle in its transaction, as between two
      // statements of a push.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.query('select 1');
    });
    await assert.rejects(attempt, (error) => isDatabaseUnavailable(error));
    const { rows } = await database.db.query<{ one: number }>('select 1 as one');
    assert.equal(rows[0]?.one, 1, 'the pool opened a new connection');
  } finally {
    await admin.end();
    await database.close();
  }
});

test('a database that refuses connections is unavailable (503), not an internal error', {
  skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL: set DATABASE_URL',
}, async () => {
  const database = await createTestDatabase();
  const name = new URL(database.url as string).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`alter database ${name} allow_connections false`);
    // Client backends only: terminating an autovacuum worker needs a superuser.
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
      [name],
    );
    // Let the pool notice and drop its terminated idle connections: the query must open a new one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await assert.rejects(database.db.query('select 1'), (error) => {
      assert.equal((error as { code?: string }).code, '55000');
      return isDatabaseUnavailable(error);
    });
  } finally {
    await admin.query(`alter database ${name} allow_connections true`);
    await admin.end();
    await database.close();
  }
});
