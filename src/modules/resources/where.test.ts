import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Where } from './where.js';

test('addOneOf writes one value as an equality and several as = any, each bound as one parameter', () => {
  const where = new Where('r.account_id = $', 'a1')
    .addOneOf('r.namespace', ['team-3'], 'text')
    .addOneOf('r.cluster_id', ['c1', 'c2'], 'uuid');
  assert.equal(where.sql, 'r.account_id = $1 and r.namespace = $2::text and r.cluster_id = any($3::uuid[])');
  assert.deepEqual(where.params, ['a1', 'team-3', ['c1', 'c2']]);
  assert.equal(where.filtered, true);
});

test('addOneOf of no value matches nothing, as = any of an empty array does', () => {
  const where = new Where('r.account_id = $', 'a1').addOneOf('r.kind', [], 'text');
  assert.equal(where.sql, 'r.account_id = $1 and r.kind = any($2::text[])');
  assert.deepEqual(where.params, ['a1', []]);
});
