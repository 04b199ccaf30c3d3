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

test('keptAlone holds the kept dimensions while they are the only filters, each once', () => {
  const clusters = () =>
    new Where('c.account_id = $', 'a1').addKept('cluster_id', 'c.cluster_id', ['c1', 'c2']);
  assert.deepEqual([...clusters().keptAlone!], [['cluster_id', ['c1', 'c2']]]);
  assert.equal(clusters().sql, 'c.account_id = $1 and c.cluster_id = any($2::uuid[])');
  assert.equal(clusters().add('c.name = $', 'web').keptAlone, undefined);
  assert.equal(clusters().addRaw('c.name is not null').keptAlone, undefined);
  // Two filters by clusters are their intersection, which no kept total holds.
  assert.equal(clusters().addKept('cluster_id', 'c.cluster_id', ['c3']).keptAlone, undefined);
  const both = clusters().addKept('kind', 'c.kind', ['Pod']);
  assert.equal(both.sql, 'c.account_id = $1 and c.cluster_id = any($2::uuid[]) and c.kind = $3::text');
  assert.deepEqual([...both.keptAlone!.keys()], ['cluster_id', 'kind']);
  assert.equal(new Where('c.account_id = $', 'a1').add('c.name = $', 'web').keptAlone, undefined);
  assert.equal(new Where('c.account_id = $', 'a1').keptAlone?.size, 0);
  // A clause that defines the list narrows nothing: the kept totals count only such rows.
  const live = new Where('r.account_id = $', 'a1')
    .addDefinition('r.is_latest')
    .addKept('cluster_id', 'r.cluster_id', ['c1']);
  assert.deepEqual(live.keptAlone?.get('cluster_id'), ['c1']);
});

test('addColumnFilters binds cluster_id as a kept uuid dimension and every other key as text', () => {
  const filters = new Map([
    ['cluster_id', ['c1']],
    ['name', ['api', 'web']],
  ]);
  const where = new Where('c.account_id = $', 'a1').addColumnFilters(filters, 'c');
  assert.equal(where.sql, 'c.account_id = $1 and c.cluster_id = $2::uuid and c.name = any($3::text[])');
  assert.equal(where.keptAlone, undefined);
  const bare = new Where('account_id = $', 'a1').addColumnFilters(new Map([['cluster_id', ['c1', 'c2']]]));
  assert.equal(bare.sql, 'account_id = $1 and cluster_id = any($2::uuid[])');
  assert.deepEqual(bare.keptAlone?.get('cluster_id'), ['c1', 'c2']);
});

test('addColumnFilters marks the keys a list keeps as kept text dimensions', () => {
  const kept = new Set(['name', 'owner_kind']);
  const filters = new Map([
    ['cluster_id', ['c1']],
    ['name', ['api', 'web']],
  ]);
  const where = new Where('c.account_id = $', 'a1').addColumnFilters(filters, 'c', kept);
  assert.equal(where.sql, 'c.account_id = $1 and c.cluster_id = $2::uuid and c.name = any($3::text[])');
  assert.deepEqual(
    [...(where.keptAlone ?? [])],
    [
      ['cluster_id', ['c1']],
      ['name', ['api', 'web']],
    ],
  );
  const withOther = new Where('c.account_id = $', 'a1').addColumnFilters(
    new Map([
      ['name', ['api']],
      ['pod_name', ['p']],
    ]),
    'c',
    kept,
  );
  assert.equal(withOther.keptAlone, undefined, 'a key the list does not keep is counted');
});
