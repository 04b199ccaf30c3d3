/**
 * The row bytes cache (row-bytes-cache.ts) on its own: a text served only at the row version it
 * was kept at, for the account it was kept for, and the byte budget kept by dropping the least
 * recently used. The pages that use it are tested in test/runtime/baseline-json.test.ts,
 * test/identities/identity-bytes.test.ts, test/runtime/insight-bytes.test.ts and
 * test/http/list-entry-bytes.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRowBytesCache, rowBytesOfTable } from './row-bytes-cache.js';

const bytes = (n: number, fill = 'x') => Buffer.from(fill.repeat(n));

test('a kept text is served at its row version and account only', () => {
  const cache = createRowBytesCache({ maxBytes: 1024 });
  cache.keep('acc-1', 'b-1', '100', bytes(10));
  assert.equal(cache.get('acc-1', 'b-1', '100')?.toString(), 'x'.repeat(10));
  assert.equal(cache.get('acc-1', 'b-1', '101'), undefined, 'another version of the row');
  assert.equal(cache.get('acc-2', 'b-1', '100'), undefined, 'the same id in another account');

  cache.keep('acc-1', 'b-1', '101', bytes(20, 'y'));
  assert.deepEqual(cache.size, { entries: 1, bytes: 20 }, 'the new version replaces the old');
  assert.equal(cache.get('acc-1', 'b-1', '100'), undefined);
});

test('the budget holds: the least recently used go first, and a text larger than it is not kept', () => {
  const cache = createRowBytesCache({ maxBytes: 100 });
  cache.keep('acc', 'a', '1', bytes(40));
  cache.keep('acc', 'b', '1', bytes(40));
  assert.ok(cache.get('acc', 'a', '1'), 'a is now the most recently used');
  cache.keep('acc', 'c', '1', bytes(40));
  assert.equal(cache.get('acc', 'b', '1'), undefined, 'b was the least recently used');
  assert.ok(cache.get('acc', 'a', '1'));
  assert.deepEqual(cache.size, { entries: 2, bytes: 80 });

  const large = bytes(101);
  assert.equal(cache.keep('acc', 'd', '1', large), large, 'handed back for the page');
  assert.equal(cache.get('acc', 'd', '1'), undefined);
  assert.deepEqual(cache.size, { entries: 2, bytes: 80 });
});

test('an entry read again and again stays held while a stream of new ones passes through', () => {
  const cache = createRowBytesCache({ maxBytes: 100 });
  cache.keep('acc', 'hot', '1', bytes(10));
  for (let n = 0; n < 200; n += 1) {
    cache.keep('acc', `cold-${n}`, '1', bytes(10));
    assert.ok(cache.get('acc', 'hot', '1'), `read back after ${n + 1} new entries`);
  }
  assert.deepEqual(cache.size, { entries: 10, bytes: 100 });
  assert.equal(cache.get('acc', 'cold-189', '1'), undefined, 'the oldest of the stream went first');
  assert.ok(cache.get('acc', 'cold-199', '1'));
});

test("a row id kept for another account replaces the first account's entry and is served to its own", () => {
  const cache = createRowBytesCache({ maxBytes: 100 });
  cache.keep('acc-1', 'same-id', '1', bytes(10, 'a'));
  cache.keep('acc-2', 'same-id', '1', bytes(10, 'b'));
  assert.equal(cache.get('acc-1', 'same-id', '1'), undefined);
  assert.equal(cache.get('acc-2', 'same-id', '1')?.toString(), 'b'.repeat(10));
  assert.deepEqual(cache.size, { entries: 1, bytes: 10 });
});

test('a cache of 0 bytes is off and holds nothing', () => {
  const cache = createRowBytesCache({ maxBytes: 0 });
  assert.equal(cache.enabled, false);
  cache.keep('acc', 'a', '1', bytes(1));
  assert.deepEqual(cache.size, { entries: 0, bytes: 0 });
});

test("one cache shared by two tables' lists: each table's ids are its own, the budget is shared", () => {
  const shared = createRowBytesCache({ maxBytes: 100 });
  const containers = rowBytesOfTable(shared, 'inventory_containers');
  const observations = rowBytesOfTable(shared, 'runtime_http_observations');
  containers.keep('acc', 'same-id', '1', bytes(40, 'c'));
  assert.equal(observations.get('acc', 'same-id', '1'), undefined, "another table's row of the same id");
  observations.keep('acc', 'same-id', '1', bytes(40, 'o'));
  assert.equal(containers.get('acc', 'same-id', '1')?.toString(), 'c'.repeat(40));
  assert.equal(observations.get('acc', 'same-id', '1')?.toString(), 'o'.repeat(40));
  assert.deepEqual(containers.size, { entries: 2, bytes: 80 });
  observations.keep('acc', 'other', '1', bytes(40));
  assert.equal(
    containers.get('acc', 'same-id', '1'),
    undefined,
    'the least recently used of either table goes',
  );
  assert.equal(containers.enabled, true);
  const resources = rowBytesOfTable(containers, 'cluster_resources');
  resources.keep('acc', 'same-id', '1', bytes(10, 'r'));
  assert.deepEqual(
    containers.size,
    { entries: 3, bytes: 90 },
    "a table's cache names another table of its budget",
  );
  assert.equal(containers.get('acc', 'same-id', '1'), undefined, 'still its own rows');
  assert.equal(rowBytesOfTable(createRowBytesCache({ maxBytes: 0 }), 'x').enabled, false);
});
