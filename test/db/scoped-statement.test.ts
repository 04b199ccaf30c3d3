/**
 * A lone statement with parameters travels with its data scope in one round trip, inside one
 * implicit transaction (src/db/scoped-statement.ts). These pin what the three round trips of
 * BEGIN / statement / COMMIT used to guarantee: the statement sees its scope, rows and errors are
 * its own, each statement is its own transaction, and a failure leaves the pool usable. Several
 * statements sent together (`queryAll`: a list page and its total) share the scope and one
 * transaction, and each gets its own rows, in order; on PGlite they run one after the other.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { queryAll } from '../../src/db/database.js';
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

test('statements sent together each get their own rows, in order, under the scope', async () => {
  const tenantId = randomUUID();
  const accountId = randomUUID();
  const when = new Date('2026-01-02T03:04:05.678Z');
  const results = await withScope({ kind: 'tenant', tenantId, accountIds: [accountId] }, () =>
    queryAll(database.db, [
      {
        sql: `select g::int as n, current_setting('posture.tenant_id', true) as tenant
                from generate_series(1, $1::int) g`,
        params: [3],
      },
      // No rows: still a result of its own, not the next statement's.
      { sql: 'select 1 as none where $1::int = 0', params: [1] },
      // Parameters converted as pg converts them: a Date, an array.
      {
        sql: 'select $1::timestamptz = $2::timestamptz as same, $3::text[] as list',
        params: [when, when.toISOString(), ['a', 'b']],
      },
      { sql: 'select count(*) as total from generate_series(1, $1::int)', params: [4] },
    ]),
  );
  assert.deepEqual(
    results.map((result) => result.rows),
    [
      // PGlite sets no scope settings: its one connection is the owner, whom no policy binds.
      [1, 2, 3].map((n) => ({ n, tenant: database.url ? tenantId : null })),
      [],
      [{ same: true, list: ['a', 'b'] }],
      [{ total: 4 }],
    ],
  );
  assert.deepEqual(
    results.map((result) => result.rowCount),
    [3, 0, 1, 1],
  );
});

test(
  'statements sent together share one transaction, and a failure rejects them all',
  postgresOnly,
  async () => {
    const db = database.db;
    const together = await withSystemScope(() =>
      queryAll(db, [
        {
          sql: "select txid_current()::text as xid, current_setting('posture.system') as system where $1::int = 1",
          params: [1],
        },
        {
          sql: "select txid_current()::text as xid, current_setting('posture.system') as system where $1::int = 1",
          params: [1],
        },
      ]),
    );
    assert.equal(together[0]?.rows[0]?.system, 'on');
    assert.deepEqual(together[0]?.rows, together[1]?.rows, 'the same transaction and settings');
    // The first fails: the second is skipped, the whole rejects with the database's error.
    await assert.rejects(
      withSystemScope(() =>
        queryAll(db, [
          { sql: 'select 1 / $1::int as q', params: [0] },
          { sql: 'select $1::int as n', params: [1] },
        ]),
      ),
      { code: '22012' },
    );
    // The last fails after the first answered.
    await assert.rejects(
      withSystemScope(() =>
        queryAll(db, [
          { sql: 'select $1::int as n', params: [1] },
          { sql: 'select 1 / $1::int as q', params: [0] },
        ]),
      ),
      { code: '22012' },
    );
    // Every connection of the pool still answers, with no settings left over.
    const after = await Promise.all(
      Array.from({ length: 12 }, () =>
        queryAll(db, [
          { sql: "select current_setting('posture.system', true) as system where $1::int = 1", params: [1] },
          { sql: 'select $1::int as n', params: [2] },
        ]),
      ),
    );
    for (const [settings, second] of after) {
      assert.deepEqual(settings?.rows, [{ system: '' }]);
      assert.deepEqual(second?.rows, [{ n: 2 }]);
    }
  },
);

test('statements sent together inside a transaction run in it, in order, each seeing the last', async () => {
  // Created by the owner: the application's role may not create tables (PGlite: the same session).
  await database.owner.exec(
    `create table transaction_pipeline_probe (n int primary key, label text);
     ${database.url ? `grant select, insert, update on transaction_pipeline_probe to ${TEST_APP_ROLE.user}` : ''}`,
  );
  const results = await withSystemScope(() =>
    database.db.transaction((tx) =>
      queryAll(tx, [
        { sql: 'insert into transaction_pipeline_probe values ($1, $2), ($3, $4)', params: [1, 'a', 2, 'b'] },
        { sql: 'update transaction_pipeline_probe set label = label || $1 where n = $2', params: ['!', 2] },
        { sql: 'select n, label from transaction_pipeline_probe order by n limit $1', params: [10] },
        { sql: 'select txid_current()::text as xid where $1::int = 1', params: [1] },
        { sql: 'select txid_current()::text as xid where $1::int = 1', params: [1] },
      ]),
    ),
  );
  assert.deepEqual(
    results.map((result) => result.rowCount),
    [2, 1, 2, 1, 1],
  );
  assert.deepEqual(results[2]?.rows, [
    { n: 1, label: 'a' },
    { n: 2, label: 'b!' },
  ]);
  assert.equal(results[3]?.rows[0]?.xid, results[4]?.rows[0]?.xid, 'one transaction');
  const committed = await withSystemScope(() =>
    database.db.query('select n, label from transaction_pipeline_probe where n > $1 order by n', [0]),
  );
  assert.deepEqual(committed.rows, results[2]?.rows);
});

test('a failure among statements sent inside a transaction rolls all of it back', async () => {
  const db = database.db;
  await database.owner.exec(
    `create table transaction_rollback_probe (n int primary key, label text);
     insert into transaction_rollback_probe values (1, 'a'), (2, 'b');
     ${database.url ? `grant select, insert on transaction_rollback_probe to ${TEST_APP_ROLE.user}` : ''}`,
  );
  const probe = (sql: string, params: unknown[]) => ({ sql, params });
  await assert.rejects(
    withSystemScope(() =>
      db.transaction(async (tx) => {
        await tx.query('insert into transaction_rollback_probe values ($1, $2)', [10, 'before']);
        await queryAll(tx, [
          probe('insert into transaction_rollback_probe values ($1, $2)', [11, 'first']),
          // a duplicate key: the rest is skipped and the transaction aborted
          probe('insert into transaction_rollback_probe values ($1, $2)', [1, 'again']),
          probe('insert into transaction_rollback_probe values ($1, $2)', [12, 'after']),
        ]);
      }),
    ),
    { code: '23505' },
  );
  // A value pg cannot convert, while another statement of the transaction is still running: the
  // caller gets the error, and nothing of the transaction stays.
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  await assert.rejects(
    withSystemScope(() =>
      db.transaction(async (tx) => {
        const running = tx.query('insert into transaction_rollback_probe values ($1, $2)', [13, 'running']);
        const sent = queryAll(tx, [
          probe('insert into transaction_rollback_probe values ($1, $2)', [14, circular]),
        ]);
        await Promise.all([running, sent]);
      }),
    ),
    TypeError,
  );
  const stored = await withSystemScope(() =>
    db.query<{ n: number }>('select n from transaction_rollback_probe where n > $1 order by n', [0]),
  );
  assert.deepEqual(
    stored.rows.map((row) => row.n),
    [1, 2],
  );
});
