/**
 * Each session keeps the statements it runs prepared (src/db/prepared-statements.ts,
 * src/db/statement-pipeline.ts): parsed once, planned generically once PostgreSQL finds that no
 * dearer, at most a bounded number of them, and never left unusable by a pipeline that failed
 * before its Parse ran. On PostgreSQL these run on a pool of one connection, so that every
 * statement shares the one session whose prepared statements are read back; on PGlite the store is
 * one session.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Config, testConfig } from '../../src/config.js';
import { type Database, openDatabase, queryAll } from '../../src/db/database.js';
import { withScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
/** one session: the PGlite store, or a pool of one PostgreSQL connection as the application */
let session: Database;

/** A pool of one connection to the test database, as the application's role (PostgreSQL only). */
const oneConnection = (settings: Partial<Config> = {}) =>
  openDatabase(testConfig({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: 1, ...settings }), {
    warn() {},
    error() {},
  });

before(async () => {
  database = await createTestDatabase();
  session = database.url ? await oneConnection() : database.db;
});
after(async () => {
  if (session !== database?.db) await session?.close();
  await database?.close();
});

interface Prepared {
  name: string;
  generic_plans: number;
  custom_plans: number;
}

/** The session's prepared statement for `sql`, read in the session itself. */
async function preparedAs(sql: string): Promise<Prepared | undefined> {
  const { rows } = await session.query<Prepared>(
    `select name, generic_plans::int, custom_plans::int from pg_prepared_statements where statement = $1`,
    [sql],
  );
  return rows[0];
}

test('a statement is prepared once, under one name, and runs on a generic plan after five', async () => {
  // An index lookup: its generic plan is the plan made for any value, so PostgreSQL keeps it.
  const sql = 'select relname::text as name from pg_class where oid = $1::regclass';
  const tables = [
    'pg_class',
    'pg_type',
    'pg_proc',
    'pg_attribute',
    'pg_index',
    'pg_namespace',
    'pg_am',
    'pg_database',
  ];
  for (const table of tables) {
    const { rows } = await session.query<{ name: string }>(sql, [table]);
    assert.deepEqual(rows, [{ name: table }]);
  }
  const prepared = await preparedAs(sql);
  assert.match(prepared?.name ?? '', /^posture_\d+$/);
  // Eight executions of one prepared statement: five planned for their values, then the generic plan.
  assert.equal(prepared!.custom_plans + prepared!.generic_plans, 8);
  assert.ok(prepared!.generic_plans >= 1, JSON.stringify(prepared));
});

test('statements inside a transaction are not kept prepared: they are planned for their values', async () => {
  const sql = 'select $1::int + 40 as answer';
  for (let run = 0; run < 6; run++) {
    const { rows } = await session.transaction((tx) => tx.query<{ answer: number }>(sql, [2]));
    assert.deepEqual(rows, [{ answer: 42 }]);
  }
  assert.equal(await preparedAs(sql), undefined);
});

test('statements after a failure in their pipeline are parsed again when next run', async () => {
  const failing = { sql: 'select 1 / $1::int as quotient', params: [0] };
  const after = { sql: 'select $1::text || $2::text as joined', params: ['a', 'b'] };
  // The failure comes first: PostgreSQL skips the second statement's Parse up to the Sync.
  await assert.rejects(queryAll(session, [failing, after]), { code: '22012' });
  const { rows } = await session.query(after.sql, ['c', 'd']);
  assert.deepEqual(rows, [{ joined: 'cd' }]);

  // The failure comes last: the first statement was parsed, and runs again under a new name.
  const before = { sql: 'select $1::int * 3 as tripled', params: [2] };
  await assert.rejects(queryAll(session, [before, failing]), { code: '22012' });
  assert.deepEqual((await session.query(before.sql, [5])).rows, [{ tripled: 15 }]);
});

test('a value that cannot be sent fails its statement and leaves it runnable', async () => {
  const sql = 'select $1::jsonb as doc';
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  await assert.rejects(session.query(sql, [circular]));
  assert.deepEqual((await session.query(sql, [{ a: 1 }])).rows, [{ doc: { a: 1 } }]);
});

test('a session keeps at most a bounded number of statements prepared, the most recent', async () => {
  const distinct = 320;
  for (let i = 0; i < distinct; i++) {
    const { rows } = await session.query<{ n: number }>(`select $1::int + ${i} as n`, [1]);
    assert.equal(rows[0]?.n, i + 1);
  }
  const kept = () =>
    session.query<{ kept: number; newest: boolean }>(
      `select count(*)::int as kept, bool_or(statement = $1) as newest
         from pg_prepared_statements where name like 'posture\\_%'`,
      [`select $1::int + ${distinct - 1} as n`],
    );
  // Read twice: the first reading is itself a new statement, whose eviction is sent with the next.
  await kept();
  const { rows } = await kept();
  assert.ok(rows[0]!.kept <= 300, `kept ${rows[0]!.kept}`);
  assert.equal(rows[0]!.newest, true);
  // The evicted ones still run: prepared again when next used.
  assert.deepEqual((await session.query('select $1::int + 0 as n', [1])).rows, [{ n: 1 }]);
});

test('the data scope is set by one prepared statement, whatever the scope', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: PGlite has no row-level scope',
}, async () => {
  const tenants = ['8a6b1f0e-6a8e-4b9a-9d55-0c3b8f1e2a01', '3c2d9e4f-1b7a-4c8e-a0d2-5f6e7a8b9c02'];
  const accounts = ['6d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f04', 'a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c05'];
  const sql = `select current_setting('posture.tenant_id', true) as tenant,
                      current_setting('posture.account_ids', true) as accounts, $1::int as run`;
  for (let run = 0; run < 6; run++) {
    const tenantId = tenants[run % 2]!;
    const accountId = accounts[run % 2]!;
    const { rows } = await withScope({ kind: 'tenant', tenantId, accountIds: [accountId] }, () =>
      session.query(sql, [run]),
    );
    assert.deepEqual(rows, [{ tenant: tenantId, accounts: `{${accountId}}`, run }]);
  }
  const { rows } = await session.query<Prepared>(
    `select name, generic_plans::int, custom_plans::int from pg_prepared_statements
      where statement like 'select set_config(%' and $1::int = 1`,
    [1],
  );
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.match(rows[0]!.name, /^posture_\d+$/);
  // One execution per statement of the session, both tenants' among them.
  assert.ok(rows[0]!.generic_plans + rows[0]!.custom_plans >= 7, JSON.stringify(rows));
});

test('with DATABASE_PREPARED_STATEMENTS=0 every statement goes unnamed', {
  skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: a setting of its pool',
}, async () => {
  const unnamed = await oneConnection({ DATABASE_PREPARED_STATEMENTS: 0 });
  try {
    const sql = 'select $1::int * 2 as doubled';
    for (let run = 1; run <= 3; run++)
      assert.deepEqual((await unnamed.query(sql, [run])).rows, [{ doubled: run * 2 }]);
    await assert.rejects(unnamed.query('select 1 / $1::int as quotient', [0]), { code: '22012' });
    const { rows } = await unnamed.query<{ prepared: number }>(
      'select count(*)::int as prepared from pg_prepared_statements where $1::int = 1',
      [1],
    );
    assert.deepEqual(rows, [{ prepared: 0 }]);
  } finally {
    await unnamed.close();
  }
});
