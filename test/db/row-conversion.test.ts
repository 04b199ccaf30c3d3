/**
 * Parameters and rows convert the same on both engines (src/db/pg-conversion.ts): PGlite's
 * statements are bound and read by node-postgres's own code (src/db/pglite-statements.ts), as the
 * PostgreSQL pool's are. These run on whichever engine the suite runs on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { queryAll } from '../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

test('values come back as the same JavaScript on either engine', async () => {
  const { rows, rowCount } = await database.db.query(
    `select 9007199254740991::int8 as count, 12.50::numeric as score, 3::int2 as small, 0.25::float8 as ratio,
            '2026-11-29T10:00:00.123Z'::timestamptz as at, array['a', 'b"c', null]::text[] as names,
            array[1, 2]::int4[] as numbers, '{"x": [1, null]}'::jsonb as doc, null::text as nothing, true as flag,
            '7b4c0e2a-3d1f-4c8e-9a57-0d6b2f1e8c34'::uuid as id`,
  );
  assert.equal(rowCount, 1);
  assert.deepEqual(rows, [
    {
      count: 9007199254740991,
      score: 12.5,
      small: 3,
      ratio: 0.25,
      at: new Date('2026-11-29T10:00:00.123Z'),
      names: ['a', 'b"c', null],
      numbers: [1, 2],
      doc: { x: [1, null] },
      nothing: null,
      flag: true,
      id: '7b4c0e2a-3d1f-4c8e-9a57-0d6b2f1e8c34',
    },
  ]);
});

test('parameters are sent as pg sends them: dates, arrays, objects as JSON, undefined as null', async () => {
  const { rows } = await database.db.query(
    `select $1::timestamptz = '2026-11-29T10:00:00.123Z'::timestamptz as same_instant,
            'it''s' = any($2::text[]) as in_array, ($3::jsonb)->>'k' as from_json, $4::int + 1 as next,
            $5::text is null as was_null, $6::boolean as flag`,
    [new Date('2026-11-29T10:00:00.123Z'), ['a', "it's"], { k: 'v' }, 41, undefined, false],
  );
  assert.deepEqual(rows, [
    { same_instant: true, in_array: true, from_json: 'v', next: 42, was_null: true, flag: false },
  ]);
});

test('rowCount is the number of rows a statement returned or changed', async () => {
  const { rows, rowCount } = await database.db.query('select g from generate_series(1, 3) g');
  assert.equal(rowCount, 3);
  assert.equal(rows.length, 3);
  const empty = await database.db.query('select 1 where false');
  assert.deepEqual(empty, { rows: [], rowCount: 0 });
  await database.owner.exec('create table row_count_probe (id int)');
  const inserted = await database.owner.query('insert into row_count_probe select generate_series(1, 4)');
  assert.deepEqual(inserted, { rows: [], rowCount: 4 });
  const updated = await database.owner.query('update row_count_probe set id = id + 1 where id > $1', [2]);
  assert.equal(updated.rowCount, 2);
});

test("a failed statement reports PostgreSQL's error fields, and the next one runs", async () => {
  await assert.rejects(database.db.query('select 1 / $1::int', [0]), (error: Error & { code?: string }) => {
    assert.equal(error.code, '22012');
    assert.match(error.message, /division by zero/);
    return true;
  });
  await assert.rejects(database.db.query('select * from no_such_table'), { code: '42P01' });
  assert.deepEqual((await database.db.query('select 1 as one')).rows, [{ one: 1 }]);
});

test('statements run together return one result each, in order; a failure in one fails them all', async () => {
  const [first, second] = await queryAll(database.db, [
    { sql: 'select g from generate_series(1, 2) g', params: [] },
    { sql: 'select $1::text as label', params: ['total'] },
  ]);
  assert.deepEqual(first?.rows, [{ g: 1 }, { g: 2 }]);
  assert.deepEqual(second?.rows, [{ label: 'total' }]);

  await assert.rejects(
    queryAll(database.db, [
      { sql: 'select 1 as fine', params: [] },
      { sql: 'select 1 / 0 as broken', params: [] },
    ]),
    { code: '22012' },
  );
  assert.deepEqual((await database.db.query('select 2 as two')).rows, [{ two: 2 }]);
});

test('a statement inside a transaction sees its uncommitted work; a failure rolls all of it back', async () => {
  await database.owner.exec('create table conversion_probe (id int primary key)');
  const seen = await database.owner.transaction(async (tx) => {
    await tx.query('insert into conversion_probe values ($1), ($2)', [1, 2]);
    return (await tx.query<{ n: number }>('select count(*) as n from conversion_probe')).rows[0]?.n;
  });
  assert.equal(seen, 2);
  await assert.rejects(
    database.owner.transaction(async (tx) => {
      await tx.query('insert into conversion_probe values ($1)', [3]);
      await tx.query('insert into conversion_probe values ($1)', [1]);
    }),
    (error: { code?: string; constraint?: string }) =>
      error.code === '23505' && error.constraint === 'conversion_probe_pkey',
  );
  const { rows } = await database.owner.query<{ id: number }>('select id from conversion_probe order by id');
  assert.deepEqual(
    rows.map((row) => row.id),
    [1, 2],
  );
});
