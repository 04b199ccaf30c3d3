import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLru } from './lru.js';

const keys = (lru: ReturnType<typeof createLru<number>>, candidates: string[]) =>
  candidates.filter((key) => lru.get(key) !== undefined);

describe('lru', () => {
  test('the least recently used entry leaves first, runs of hits on the newest included', () => {
    const lru = createLru<number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    lru.get('c');
    lru.get('c');
    lru.get('a'); // order: b, c, a
    lru.set('d', 4);
    assert.equal(lru.get('b'), undefined, 'b was the least recently used');
    assert.equal(lru.size, 3);
    // Order now c, a, d. Deleting the newest and then using an older key moves that key last.
    lru.delete('d');
    lru.get('c'); // order: a, c
    lru.set('e', 5);
    lru.set('f', 6);
    assert.deepEqual(keys(lru, ['a', 'c', 'e', 'f']), ['c', 'e', 'f']);
  });

  test('a value set again under its key replaces it and becomes the newest', () => {
    const lru = createLru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('a', 10);
    lru.set('c', 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 10);
  });
});
