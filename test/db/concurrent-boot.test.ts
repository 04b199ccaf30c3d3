/**
 * Servers starting at once on one PostgreSQL database (replicas behind a load balancer, or the
 * kill suite's standbys) each migrate and then grant the application's role its data rights as
 * the owner (src/db/prepare.ts). Two GRANTs on the same tables at once fail one of them with
 * `tuple concurrently updated`, and that server exits before it is ready; the grants therefore
 * take the migrations' advisory lock, and concurrent starts take turns.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { openMigratedDatabase } from '../../src/db/prepare.js';
import { withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const quiet = { warn() {}, error() {} };
let database: TestDatabase | undefined;
after(() => database?.close());

test('servers starting at once on one database all grant the application role and open', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: PGlite serves one process',
}, async () => {
  database = await createTestDatabase();
  const config = testConfig({
    DATABASE_URL: database.url ?? '',
    DATABASE_MIGRATION_URL: database.ownerUrl ?? '',
    DATABASE_POOL_SIZE: 1,
  });
  // Several rounds of eight starts: one round did not always meet the race before the grants took the lock.
  for (let round = 0; round < 5; round++) {
    const starts = await Promise.allSettled(
      Array.from({ length: 8 }, () => openMigratedDatabase(config, quiet)),
    );
    const failed = starts.flatMap((start) => (start.status === 'rejected' ? [String(start.reason)] : []));
    for (const start of starts) if (start.status === 'fulfilled') await start.value.db.close();
    assert.deepEqual(failed, [], `round ${round}`);
  }
  // And the role holds its rights: the application's connection reads a table.
  const { db } = await openMigratedDatabase(config, quiet);
  try {
    const { rows } = await withSystemScope(() =>
      db.query<{ n: number }>('select count(*)::int as n from tenants'),
    );
    assert.equal(rows[0]?.n, 0);
  } finally {
    await db.close();
  }
});
