/**
 * The settings every PostgreSQL connection of the server starts with (src/db/postgres.ts): no JIT
 * compilation, whose cost per execution outweighed the short statements it compiled
 * (docs/performance.md, "JIT"), although PostgreSQL 15 turns `jit` on by default.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase | undefined;
after(() => database?.close());

test('the server connections run without JIT, in statements and in transactions', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: PGlite has no JIT',
}, async () => {
  database = await createTestDatabase();
  const db = database.db;
  const lone = await withSystemScope(() => db.query<{ jit: string }>("select current_setting('jit') as jit"));
  assert.equal(lone.rows[0]?.jit, 'off');
  const inTransaction = await withSystemScope(() =>
    db.transaction((tx) => tx.query<{ jit: string }>("select current_setting('jit') as jit")),
  );
  assert.equal(inTransaction.rows[0]?.jit, 'off');
});
