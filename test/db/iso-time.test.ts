/**
 * isoUtc (src/db/iso-time.ts): PostgreSQL's text of a timestamptz must be the bytes the API wrote
 * when the value went through a Date (the driver's parse, then toISOString), since list pages now
 * pass that text through. Checked on both engines, microseconds and session time zone included.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isoUtc } from '../../src/db/iso-time.js';
import { withSystemScope } from '../../src/db/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.close());

const EDGES = [
  '2026-11-23 04:32:48.210999+00',
  '2026-11-23 04:32:48.291+00',
  '2026-11-23 04:32:48.000999+00',
  '2026-12-31 23:59:59.999999+00',
  '2026-03-29 01:30:00.5+02',
  '1970-01-01 00:00:00+00',
  '1969-12-31 23:59:59.999+00',
  '9999-12-31 23:59:59.999999+00',
];

test('isoUtc is the Date round trip of every value, to the millisecond, and NULL stays NULL', async () => {
  // Random instants between 1900 and 2100 with random microseconds, plus the edges above.
  const random = Array.from({ length: 300 }, (_, i) => {
    const ms = Date.UTC(1900, 0, 1) + Math.floor((((i * 7919) % 1000) / 1000) * 6.3e12) + i * 104_729_113;
    const micros = String((i * 7_654_321) % 1_000_000).padStart(6, '0');
    return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}.${micros}+00`;
  });
  const values = [...EDGES, ...random];
  const { rows } = await withSystemScope(() =>
    database.db.query<{ value: Date; text: string }>(
      `select v as value, ${isoUtc('v')} as text from unnest($1::timestamptz[]) as t (v)`,
      [values],
    ),
  );
  assert.equal(rows.length, values.length);
  for (const [i, row] of rows.entries()) assert.equal(row.text, row.value.toISOString(), values[i]);
  assert.equal(rows[0]?.text, '2026-11-23T04:32:48.210Z');
  assert.equal(rows[4]?.text, '2026-03-28T23:30:00.500Z');

  // Years 1 to 99: PGlite's own parse reads them as 1901 to 1999 or 2000 to 2099 (Date.UTC's
  // two-digit years), which the Date round trip used to pass on; the text is the stored year.
  const early = await withSystemScope(() =>
    database.db.query<{ text: string }>(`select ${isoUtc('$1::timestamptz')} as text`, [
      '0001-01-01 00:00:00.0015+00',
    ]),
  );
  assert.deepEqual(early.rows, [{ text: '0001-01-01T00:00:00.001Z' }]);

  const nulls = await withSystemScope(() =>
    database.db.query<{ text: string | null }>(`select ${isoUtc('$1::timestamptz')} as text`, [null]),
  );
  assert.deepEqual(nulls.rows, [{ text: null }]);
});

test('isoUtc does not depend on the session time zone', async () => {
  const text = await withSystemScope(() =>
    database.db.transaction(async (tx) => {
      await tx.exec("set local time zone 'America/St_Johns'");
      const { rows } = await tx.query<{ text: string }>(`select ${isoUtc('$1::timestamptz')} as text`, [
        '2026-07-01 12:00:00.123456+00',
      ]);
      return rows[0]?.text;
    }),
  );
  assert.equal(text, '2026-07-01T12:00:00.123Z');
});
