/**
 * The database ceiling's pgbench script (pgbench.ts): each statement is prepared once per
 * connection and executed by name on every transaction, string literals with `:word` in them
 * included (pgbench's own prepared mode would take those for variables). PostgreSQL only, where
 * pgbench is installed (.ci/postgres.sh installs postgresql-contrib).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { pgbench } from './pgbench.js';

const hasPgbench = spawnSync('pgbench', ['--version']).status === 0;
const skip = !process.env.DATABASE_URL ? 'PostgreSQL only' : hasPgbench ? false : 'pgbench is not installed';

let database: TestDatabase;
before(async () => {
  if (!skip) database = await createTestDatabase();
});
after(() => database?.close());

test('runs the statements prepared, once per connection, literals with colons included', {
  skip,
}, async () => {
  const ownerUrl = database.ownerUrl!;
  const result = await pgbench(
    ownerUrl,
    [
      `select to_char(timestamptz '2026-11-30T10:11:12Z' at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as at`,
      // Divides by zero, and so fails the run, unless this connection holds both statements prepared.
      `select 1 / (count(*)::int / 2) as one from pg_prepared_statements where name like 'posture\\_ceiling\\_%'`,
    ],
    { connections: 2, seconds: 1 },
  );
  assert.equal(result.failed, 0);
  assert.ok(result.transactions > 10, JSON.stringify(result));
});
