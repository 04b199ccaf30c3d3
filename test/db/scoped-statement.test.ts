/**
 * A lone statement with parameters travels with its data scope in one round trip, inside one
 * implicit transaction (src/db/scoped-statement.ts). These pin what the three round trips of
 * BEGIN / statement / COMMIT used to guarantee: the statement sees its scope, rows and errors are
 * its own, each statement is its own transaction, and a failure leaves the pool usable.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { withScope, withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, TEST_APP_ROLE, type TestDatabase } from '../support/database.js';

const postgresOnly = { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: PGlite has no pool' };
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

test('a statement with parameters sees its scope and returns only its own rows', postgresOnly, async () => {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  const { rows, rowCount } = await withScope({ kind: 'tenant', tenantId, accountIds: [accountId] }, () =>
    database.db.query<{ tenant: string; accounts: string; system: string; n: number }>(
      `select current_setting('posture.tenant_id') as tenant, current_setting('posture.account_ids') as accounts,
              current_setting('posture.system') as system, g::int as n
         from generate_series(1, $1::int) g`,
      [3],
    ),
  );
  assert.equal(rowCount, 3);
  assert.deepEqual(
    rows,
    [1, 2, 3].map((n) => ({ tenant: tenantId, accounts: `{${accountId}}`, system: '', n })),
  );
});

test('each statement is its own transaction, and its settings end with it', postgresOnly, async () => {
  const db = database.db;
  const first = await withSystemScope(() =>
    db.query<{ xid: string; system: string }>(
      "select txid_current()::text as xid, current_setting('posture.system') as system where $1::int = 1",
      [1],
    ),
  );
  const second = await withSystemScope(() =>
    db.query<{ xid: string }>('select txid_current()::text as xid where $1::int = 1', [1]),
  );
  assert.equal(first.rows[0]?.system, 'on');
  assert.notEqual(first.rows[0]?.xid, second.rows[0]?.xid);
  // A statement outside any scope runs with empty settings, whatever ran before on the connection.
  for (let i = 0; i < 5; i++) {
    const bare = await db.query<{ system: string }>(
      "select current_setting('posture.system', true) as system where $1::int = 1",
      [1],
    );
    assert.equal(bare.rows[0]?.system, '');
  }
});

test(
  'a failing statement rejects with the database error, writes nothing, and the pool goes on',
  postgresOnly,
  async () => {
    const db = database.db;
    // Created by the owner: the application's role may not create tables.
    await database.owner.exec(
      `create table scoped_statement_probe (n int primary key);
     grant select, insert on scoped_statement_probe to ${TEST_APP_ROLE.user}`,
    );
    await assert.rejects(
      withSystemScope(() => db.query('insert into scoped_statement_probe values ($1), ($1)', [7])),
      { code: '23505' },
    );
    await assert.rejects(
      withSystemScope(() => db.query('select 1 / $1::int', [0])),
      { code: '22012' },
    );
    const inserted = await withSystemScope(() =>
      db.query('insert into scoped_statement_probe values ($1) returning n', [8]),
    );
    assert.deepEqual(inserted.rows, [{ n: 8 }]);
    const stored = await withSystemScope(() =>
      db.query<{ n: number }>('select n from scoped_statement_probe where n > $1 order by n', [0]),
    );
    assert.deepEqual(stored.rows, [{ n: 8 }]);
  },
);
