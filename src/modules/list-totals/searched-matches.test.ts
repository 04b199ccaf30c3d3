import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { keptIdsBetween, SearchedMatches } from './searched-matches.js';

const uuids = (n: number) => Array.from({ length: n }, () => randomUUID());

describe('SearchedMatches', () => {
  test('keeps a search under its generation, and slices its ids in order, clamped to them', () => {
    const ids = uuids(5);
    const matches = new SearchedMatches();
    matches.keep('search', 'g1', ids.join(','));
    const kept = matches.get('search');
    assert.equal(kept?.generation, 'g1');
    assert.equal(kept?.count, 5);
    assert.deepEqual(keptIdsBetween(kept!, 0, 2), ids.slice(0, 2));
    assert.deepEqual(keptIdsBetween(kept!, 3, 10), ids.slice(3));
    assert.deepEqual(keptIdsBetween(kept!, -2, 1), ids.slice(0, 1));
    assert.deepEqual(keptIdsBetween(kept!, 5, 8), []);
    assert.equal(matches.get('other search'), undefined);
  });

  test('a search without matches is kept too: its total is 0', () => {
    const matches = new SearchedMatches();
    matches.keep('search', 'g1', '');
    assert.equal(matches.get('search')?.count, 0);
    assert.deepEqual(keptIdsBetween(matches.get('search')!, 0, 10), []);
  });

  test('refuses what is not uuids joined by commas', () => {
    assert.throws(() => new SearchedMatches().keep('search', 'g1', 'a,b'), /uuids joined by commas/);
  });

  test('a new keep replaces the last, and forget drops it', () => {
    const matches = new SearchedMatches();
    matches.keep('search', 'g1', uuids(3).join(','));
    matches.keep('search', 'g2', uuids(2).join(','));
    assert.deepEqual(matches.size, { searches: 1, ids: 2 });
    assert.equal(matches.get('search')?.generation, 'g2');
    matches.forget('search');
    assert.deepEqual(matches.size, { searches: 0, ids: 0 });
    assert.equal(matches.get('search'), undefined);
  });

  test('holds at most its ids, least recently used search dropped first, and no search over its own cap', () => {
    const matches = new SearchedMatches({ maxIds: 10, maxIdsPerSearch: 6 });
    matches.keep('one', 'g', uuids(4).join(','));
    matches.keep('two', 'g', uuids(4).join(','));
    assert.ok(matches.get('one'), 'one is now the most recently used');
    matches.keep('three', 'g', uuids(4).join(','));
    assert.equal(matches.get('two'), undefined);
    assert.ok(matches.get('one'));
    assert.ok(matches.get('three'));
    assert.deepEqual(matches.size, { searches: 2, ids: 8 });
    matches.keep('large', 'g', uuids(7).join(','));
    assert.equal(matches.get('large'), undefined, 'more matches than a search may keep');
    assert.deepEqual(matches.size, { searches: 2, ids: 8 });
  });
});
