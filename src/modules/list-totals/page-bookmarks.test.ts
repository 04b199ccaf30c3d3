import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PageBookmarks } from './page-bookmarks.js';

describe('PageBookmarks', () => {
  test('offers the nearest row at or before the offset, under the generation it was seen in', () => {
    const marks = new PageBookmarks();
    marks.record('list', 'g1', 1000, [
      { offset: 100, key: 'a' },
      { offset: 149, key: 'b' },
      { offset: 400, key: 'c' },
    ]);
    assert.deepEqual(marks.nearest('list', 150), { generation: 'g1', offset: 149, key: 'b' });
    assert.deepEqual(marks.nearest('list', 400), { generation: 'g1', offset: 400, key: 'c' });
    assert.equal(marks.nearest('list', 99), undefined, 'nothing before it');
    assert.equal(marks.nearest('other list', 150), undefined);
  });

  test('offers nothing that would walk as far as the page does without it', () => {
    const marks = new PageBookmarks();
    marks.record('list', 'g1', 1000, [{ offset: 10, key: 'a' }]);
    // offset 30: 20 rows from the bookmark, 30 from the start
    assert.equal(marks.nearest('list', 30)?.key, 'a');
    // offset 980: 970 rows from the bookmark, 20 from the end
    assert.equal(marks.nearest('list', 980), undefined);
    marks.record('list', 'g1', 1000, [{ offset: 0, key: 'first' }]);
    // offset 5: 5 rows from either
    assert.equal(marks.nearest('list', 5), undefined);
    assert.equal(marks.nearest('list', 0), undefined, 'page 1 walks nothing');
  });

  test('pages before its first offset take no bookmarks', () => {
    const marks = new PageBookmarks({ fromOffset: 100 });
    assert.equal(marks.forPageAt(0), undefined);
    assert.equal(marks.forPageAt(99), undefined);
    assert.equal(marks.forPageAt(100), marks);
    assert.equal(new PageBookmarks().forPageAt(999), undefined, 'by default, the first thousand rows');
    assert.equal(new PageBookmarks().forPageAt(1000)?.nearest('list', 1000), undefined);
  });

  test('a new generation forgets the rows seen in the last one', () => {
    const marks = new PageBookmarks();
    marks.record('list', 'g1', 1000, [{ offset: 100, key: 'a' }]);
    marks.record('list', 'g2', 1001, [{ offset: 300, key: 'b' }]);
    assert.equal(marks.nearest('list', 200), undefined);
    assert.deepEqual(marks.nearest('list', 300), { generation: 'g2', offset: 300, key: 'b' });
  });

  test('holds at most its lists, least recently used dropped first, and its offsets per list', () => {
    const marks = new PageBookmarks({ maxLists: 2, marksPerList: 3 });
    marks.record('one', 'g', 1000, [{ offset: 100, key: 'a' }]);
    marks.record('two', 'g', 1000, [{ offset: 100, key: 'a' }]);
    assert.ok(marks.nearest('one', 100), 'one is now the most recently used');
    marks.record('three', 'g', 1000, [{ offset: 100, key: 'a' }]);
    assert.equal(marks.nearest('two', 100), undefined);
    assert.ok(marks.nearest('one', 100));
    for (const offset of [200, 300, 400]) marks.record('one', 'g', 1000, [{ offset, key: `k${offset}` }]);
    assert.equal(marks.nearest('one', 199), undefined, 'the oldest offset was dropped');
    assert.equal(marks.nearest('one', 400)?.key, 'k400');
  });
});
