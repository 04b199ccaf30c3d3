/**
 * Parameters inlined as literals (src/db/inline-params.ts, for COPY and pgbench, which bind none)
 * must reach the database as the very values a bound parameter would: any text, quotes, backslashes
 * and all.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { inlineParams } from '../../src/db/inline-params.js';
import { withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

/** Text PostgreSQL can store: anything but NUL. */
const text = fc.string({ unit: 'binary' }).map((value) => value.replaceAll('\0', ''));

test('inlined strings, arrays, booleans and numbers equal the bound parameters', async () => {
  await fc.assert(
    fc.asyncProperty(
      text,
      fc.array(text, { maxLength: 4 }),
      fc.boolean(),
      fc.oneof(fc.integer(), fc.constant(-2147483648)),
      async (s, a, b, n) => {
        const params = [s, a, b, n];
        const inlined = inlineParams(
          'select $1::text as s, $2::text[] as a, $3::boolean as b, $4::int as n',
          params,
        );
        const { rows } = await withSystemScope(() =>
          database.db.query<{ same: boolean }>(
            `select (q.s = $1 and q.a = $2::text[] and q.b = $3 and q.n = $4) as same from (${inlined}) q`,
            params,
          ),
        );
        assert.equal(rows[0]?.same, true, JSON.stringify(params));
      },
    ),
    { numRuns: 150 },
  );
});

test('null, dates, bytes, JSON objects and numeric arrays as pg would send them', async () => {
  const params = [
    null,
    new Date('2024-01-02T03:04:05.678Z'),
    Buffer.from([0, 92, 255]),
    { a: 'it\'s \\ "q"' },
    [1, null, 2.5],
  ];
  const inlined = inlineParams(
    'select $1::text as n, $2::timestamptz as d, $3::bytea as b, $4::jsonb as j, $5::float8[] as a',
    params,
  );
  const { rows } = await withSystemScope(() =>
    database.db.query<{ same: boolean }>(
      `select (q.n is null and q.d = $1 and q.b = $2 and q.j = $3::jsonb and q.a = $4::float8[]) as same
         from (${inlined}) q`,
      params.slice(1),
    ),
  );
  assert.equal(rows[0]?.same, true);
});

test('a placeholder without its parameter, or a value with no literal, is refused', () => {
  assert.throws(() => inlineParams('select $2', ['x']), /no parameter for \$2/);
  assert.throws(() => inlineParams('select $1', [undefined]), /no SQL literal/);
  assert.throws(() => inlineParams('select $1', [Number.NaN]), /no SQL literal/);
  assert.throws(() => inlineParams('select $1', [[[1, 2]]]), /no SQL literal/, 'an array of arrays');
  assert.equal(inlineParams('select $1, $10', ['a', 2, 3, 4, 5, 6, 7, 8, 9, "b'c"]), `select 'a', 'b''c'`);
});
