/**
 * The CSV cells PostgreSQL formats for the COPY form of the CVE report
 * (src/modules/vulnerabilities/csv-cells-sql.ts) must be the text csv-stringify writes for the same
 * value in the cursor form (cve-csv.ts): checked here value by value on the engine itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { withSystemScope } from '../../src/db/scope.js';
import {
  csvBoolean,
  csvJoinedText,
  csvText,
  jsNumberText,
} from '../../src/modules/vulnerabilities/csv-cells-sql.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

/** The cell's text, or null for a cell COPY writes as nothing (it quotes an empty string). */
const cellOf = async (expression: string, value: unknown, type: string) => {
  const { rows } = await withSystemScope(() =>
    database.db.query<{ cell: string | null }>(
      `select ${expression} as cell from (select $1::${type} as v) x`,
      [value],
    ),
  );
  return rows[0]?.cell ?? null;
};

/** The value of csv-stringify's cell for one value (options of cve-csv.ts), read back with csv-parse. */
function stringified(value: unknown): string {
  const line = stringify([[value, 'end']], {
    escape_formulas: true,
    quoted_match: /[\r\n]/,
    cast: { boolean: (b: boolean) => (b ? 'true' : 'false') },
  });
  return (parse(line) as string[][])[0]?.[0] ?? '';
}

test('text: neutralised like a formula where csv-stringify does it, empty as nothing', async () => {
  const starts = fc.constantFrom(
    '=',
    '+',
    '-',
    '@',
    '\t',
    '\r',
    '\uFF1D',
    '\uFF0B',
    '\uFF0D',
    '\uFF20',
    'a',
    "'",
    '',
  );
  const rest = fc.string({ unit: 'binary' }).map((value) => value.replaceAll('\0', ''));
  await fc.assert(
    fc.asyncProperty(starts, rest, async (start, tail) => {
      const value = start + tail;
      const expected = value === '' ? null : stringified(value);
      assert.equal(await cellOf(csvText('x.v'), value, 'text'), expected, JSON.stringify(value));
    }),
    { numRuns: 200 },
  );
  assert.equal(await cellOf(csvText('x.v'), '', 'text'), null, 'an empty string');
});

test('a text array: its elements joined with |, checked like the joined text', async () => {
  const element = fc.oneof(
    fc.constantFrom('', '=1', '@x', '-', '\uFF20a', '\t', 'uid-1', "'"),
    fc.string({ unit: 'binary' }).map((value) => value.replaceAll('\0', '')),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(element, { maxLength: 4 }), async (elements) => {
      const joined = elements.join('|');
      const expected = joined === '' ? null : stringified(joined);
      assert.equal(
        await cellOf(csvJoinedText('x.v'), elements, 'text[]'),
        expected,
        JSON.stringify(elements),
      );
    }),
    { numRuns: 300 },
  );
  assert.equal(await cellOf(csvJoinedText('x.v'), ['', '=1'], 'text[]'), '|=1', 'an empty first element');
  assert.equal(await cellOf(csvJoinedText('x.v'), ['=1', 'a'], 'text[]'), "'=1|a");
  assert.equal(await cellOf(csvJoinedText('x.v'), [], 'text[]'), null, 'no elements');
});

test('booleans as true / false, NULL as NULL', async () => {
  assert.equal(await cellOf(csvBoolean('x.v'), true, 'boolean'), 'true');
  assert.equal(await cellOf(csvBoolean('x.v'), false, 'boolean'), 'false');
  assert.equal(await cellOf(csvBoolean('x.v'), null, 'boolean'), null);
});

test("double precision as JavaScript's String(number) writes it, below 2^53", async () => {
  const edges = [
    0,
    1,
    0.5,
    0.0001,
    0.00004,
    0.000001,
    9.99e-7,
    1e-7,
    1.5e-10,
    5e-324,
    0.1 + 0.2,
    1 / 3,
    1e15,
    2 ** 53 - 1,
  ];
  const doubles = fc.oneof(
    fc.constantFrom(...edges),
    fc.double({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1, noNaN: true }),
    fc.double({ min: 0, max: 1, noNaN: true }),
  );
  await fc.assert(
    fc.asyncProperty(doubles, async (value) => {
      const cell = await cellOf(jsNumberText('x.v'), value, 'float8');
      assert.equal(cell, String(value === 0 ? 0 : value), String(value));
    }),
    { numRuns: 500 },
  );
  assert.equal(await cellOf(jsNumberText('x.v'), null, 'float8'), null);
});
