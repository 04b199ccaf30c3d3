import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { entryJson } from './entry-json.js';

const Entry = Type.Object({
  id: Type.String(),
  note: Type.Optional(Type.String()),
  count: Type.Integer(),
});

test('entryJson names one column per property, in the schema order whatever the order given', () => {
  const entry = entryJson(Entry, { count: 'e.n', note: 'e.note', id: 'e.id' });
  assert.equal(entry.select, 'row_to_json(api_entry)::text as entry');
  assert.equal(
    entry.lateral,
    'cross join lateral (select e.id as "id", e.note as "note", e.n as "count") api_entry',
  );
});

test('entryJson leaves out an optional property given no SQL, and refuses a required one', () => {
  assert.equal(
    entryJson(Entry, { id: 'e.id', note: undefined, count: 'e.n' }).lateral,
    'cross join lateral (select e.id as "id", e.n as "count") api_entry',
  );
  assert.throws(
    () => entryJson(Entry, { id: 'e.id', note: 'e.note', count: undefined as never }),
    /no SQL for the required property count/,
  );
});

test('entryJson refuses a column the schema does not name: the schema is the allow-list', () => {
  assert.throws(
    () => entryJson(Entry, { id: 'e.id', note: undefined, count: 'e.n', secret: 'e.hash' } as never),
    /not in the schema: secret/,
  );
});
